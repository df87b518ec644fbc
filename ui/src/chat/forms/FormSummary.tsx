import { useTranslation } from 'react-i18next';
import type { JsonValue } from '../../generated/serde_json/JsonValue';
import { fieldsOf, type Field } from './schema';

type Obj = { [key: string]: JsonValue };

function isObj(v: JsonValue | undefined): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The submitted values of a `request_form` call: its result's `values` (or the result itself). */
function valuesOf(result: JsonValue | undefined): Obj | null {
  if (!isObj(result)) return null;
  if (result['action'] !== undefined && result['action'] !== 'accept') return null;
  const values = result['values'];
  return isObj(values) ? values : result['action'] === undefined ? result : null;
}

/**
 * The fields a `request_form` call asked for, by their titles: from its JSON Schema, or from the
 * `fields` list the model is offered (name, label, kind, options), which the engine turns into
 * that schema only for the form it shows; the call's arguments keep the list.
 */
export function formFieldsOf(args: JsonValue | undefined): Field[] {
  if (!isObj(args)) return [];
  if (isObj(args['schema'])) return fieldsOf(args['schema']);
  const list = args['fields'];
  if (!Array.isArray(list)) return [];
  const properties: Obj = {};
  for (const f of list) {
    if (!isObj(f) || typeof f['name'] !== 'string') continue;
    const property: Obj = { title: typeof f['label'] === 'string' ? f['label'] : f['name'] };
    const options = f['options'];
    if (Array.isArray(options)) {
      if (f['kind'] === 'choices') Object.assign(property, { type: 'array', items: { type: 'string', enum: options } });
      else Object.assign(property, { type: 'string', enum: options });
    } else property['type'] = f['kind'] === 'yes_no' ? 'boolean' : f['kind'] === 'number' || f['kind'] === 'integer' ? f['kind'] : 'string';
    properties[f['name']] = property;
  }
  return fieldsOf({ type: 'object', properties });
}

/** The title the model gave its form, if any. */
export function formTitleOf(args: JsonValue | undefined): string | null {
  return isObj(args) && typeof args['title'] === 'string' && args['title'].trim() ? args['title'] : null;
}

/** A value as a person reads it: choices by their labels, yes/no, lists joined. */
function shown(field: Field | undefined, value: JsonValue, yes: string, no: string): string {
  const label = (v: JsonValue) => {
    if (field && (field.kind === 'select' || field.kind === 'multi')) {
      const option = field.options.find((o) => o.value === v);
      if (option) return option.label;
    }
    return typeof v === 'string' ? v : JSON.stringify(v);
  };
  if (typeof value === 'boolean') return value ? yes : no;
  if (Array.isArray(value)) return value.map(label).join(', ');
  return label(value);
}

/**
 * What the person answered to a form, as labels and values (the form's own titles), in place of
 * the raw JSON; nothing for a form that was declined, cancelled or not answered.
 */
export function FormSummary({ args, result }: { args: JsonValue | undefined; result: JsonValue | undefined }) {
  const { t } = useTranslation();
  const values = valuesOf(result);
  if (!values) return null;
  const fields = formFieldsOf(args);
  const names = [...fields.map((f) => f.name).filter((n) => n in values), ...Object.keys(values).filter((n) => !fields.some((f) => f.name === n))];
  if (names.length === 0) return null;
  const title = formTitleOf(args) ?? t('form.answers');
  return (
    <section className="form-summary" aria-label={t('form.answersTo', { title })} data-testid="form-summary">
      <h4 className="tool-card-heading">{t('form.answersTo', { title })}</h4>
      <dl className="settings-facts">
        {names.map((name) => {
          const field = fields.find((f) => f.name === name);
          const value = values[name];
          return value === undefined ? null : (
            <div key={name} className="form-summary-row">
              <dt>{field?.title ?? name}</dt>
              <dd>{shown(field, value, t('form.yes'), t('form.no'))}</dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}
