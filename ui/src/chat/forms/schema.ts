/**
 * The form schema subset (docs/design.md "Wire decisions", MCP elicitation): a flat object whose
 * properties are strings (minLength, maxLength, format email/uri/date/date-time), numbers or
 * integers (minimum, maximum), booleans, single-select enums (`enum`, or `oneOf` of
 * `{const, title}`) and multi-selects (`type: array`, `items.enum` or `items.anyOf` of
 * `{const, title}`, minItems/maxItems), each with an optional `default`; `required` lists the
 * fields that must be given. The engine refuses any other schema before it reaches the person,
 * and validates the answer again (its field errors come back as a 422).
 */
import type { JsonValue } from '../../generated/serde_json/JsonValue';

export type Scalar = string | number | boolean;

export interface Option {
  value: string | number;
  label: string;
}

interface Common {
  name: string;
  title: string;
  description?: string;
  required: boolean;
}

export type Field =
  | (Common & { kind: 'string'; minLength?: number; maxLength?: number; format?: 'email' | 'uri' | 'date' | 'date-time'; default?: string })
  | (Common & { kind: 'number' | 'integer'; minimum?: number; maximum?: number; default?: number })
  | (Common & { kind: 'boolean'; default?: boolean })
  | (Common & { kind: 'select'; options: Option[]; default?: string | number })
  | (Common & { kind: 'multi'; options: Option[]; minItems?: number; maxItems?: number; default?: (string | number)[] })
  | (Common & { kind: 'unsupported' });

type Obj = { [key: string]: JsonValue };

function isObj(v: JsonValue | undefined): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: JsonValue | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function options(from: Obj): Option[] | null {
  const list = from['enum'];
  if (Array.isArray(list)) {
    const out: Option[] = [];
    for (const v of list) if (typeof v === 'string' || typeof v === 'number') out.push({ value: v, label: String(v) });
    return out;
  }
  const choices = from['oneOf'] ?? from['anyOf'];
  if (Array.isArray(choices)) {
    const out: Option[] = [];
    for (const c of choices) {
      if (isObj(c) && (typeof c['const'] === 'string' || typeof c['const'] === 'number')) {
        out.push({ value: c['const'], label: typeof c['title'] === 'string' ? c['title'] : String(c['const']) });
      }
    }
    return out;
  }
  return null;
}

export function fieldsOf(schema: Obj): Field[] {
  const properties = isObj(schema['properties']) ? schema['properties'] : {};
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : []);
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (!isObj(raw)) continue;
    const common: Common = { name, title: typeof raw['title'] === 'string' ? raw['title'] : name, required: required.has(name) };
    if (typeof raw['description'] === 'string') common.description = raw['description'];
    const type = raw['type'];
    const def = raw['default'];
    const choices = options(raw);
    if (type === 'array') {
      const items = isObj(raw['items']) ? options(raw['items']) : null;
      if (!items) {
        fields.push({ ...common, kind: 'unsupported' });
        continue;
      }
      const f: Field = { ...common, kind: 'multi', options: items };
      const min = num(raw['minItems']);
      const max = num(raw['maxItems']);
      if (min !== undefined) f.minItems = min;
      if (max !== undefined) f.maxItems = max;
      if (Array.isArray(def)) f.default = def.filter((d): d is string | number => typeof d === 'string' || typeof d === 'number');
      fields.push(f);
    } else if (choices) {
      const f: Field = { ...common, kind: 'select', options: choices };
      if (typeof def === 'string' || typeof def === 'number') f.default = def;
      fields.push(f);
    } else if (type === 'string') {
      const f: Field = { ...common, kind: 'string' };
      const min = num(raw['minLength']);
      const max = num(raw['maxLength']);
      if (min !== undefined) f.minLength = min;
      if (max !== undefined) f.maxLength = max;
      const format = raw['format'];
      if (format === 'email' || format === 'uri' || format === 'date' || format === 'date-time') f.format = format;
      if (typeof def === 'string') f.default = def;
      fields.push(f);
    } else if (type === 'number' || type === 'integer') {
      const f: Field = { ...common, kind: type };
      const min = num(raw['minimum']);
      const max = num(raw['maximum']);
      if (min !== undefined) f.minimum = min;
      if (max !== undefined) f.maximum = max;
      if (typeof def === 'number') f.default = def;
      fields.push(f);
    } else if (type === 'boolean') {
      const f: Field = { ...common, kind: 'boolean' };
      if (typeof def === 'boolean') f.default = def;
      fields.push(f);
    } else {
      fields.push({ ...common, kind: 'unsupported' });
    }
  }
  return fields;
}

/** What the inputs hold: text for text-like inputs, booleans, selected option indexes. */
export type Draft = Record<string, string | boolean | number[]>;

export function initialDraft(fields: Field[]): Draft {
  const draft: Draft = {};
  for (const f of fields) {
    switch (f.kind) {
      case 'string':
        draft[f.name] = f.default !== undefined ? (f.format === 'date-time' ? toLocalInput(f.default) : f.default) : '';
        break;
      case 'number':
      case 'integer':
        draft[f.name] = f.default !== undefined ? String(f.default) : '';
        break;
      case 'boolean':
        draft[f.name] = f.default ?? false;
        break;
      case 'select': {
        const at = f.default !== undefined ? f.options.findIndex((o) => o.value === f.default) : -1;
        draft[f.name] = at >= 0 ? String(at) : '';
        break;
      }
      case 'multi':
        draft[f.name] = (f.default ?? []).map((d) => f.options.findIndex((o) => o.value === d)).filter((i) => i >= 0);
        break;
      default:
        break;
    }
  }
  return draft;
}

/** `2026-11-23T10:00:00Z` → the `datetime-local` form `2026-11-23T10:00` in local time. */
function toLocalInput(value: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export type FieldError =
  | { key: 'errRequired' | 'errNumber' | 'errInteger' | 'errEmail' | 'errUri' }
  | { key: 'errTooShort' | 'errTooFew' | 'errTooSmall'; min: number }
  | { key: 'errTooLong' | 'errTooMany' | 'errTooLarge'; max: number };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isUri(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol.length > 1;
  } catch {
    return false;
  }
}

/**
 * Checks the draft against the schema and builds the values to send (empty optional fields
 * left out). The engine checks again; this only spares a round trip.
 */
export function validate(fields: Field[], draft: Draft): { values: { [key: string]: JsonValue }; errors: Record<string, FieldError> } {
  const values: { [key: string]: JsonValue } = {};
  const errors: Record<string, FieldError> = {};
  for (const f of fields) {
    const v = draft[f.name];
    switch (f.kind) {
      case 'string': {
        const text = typeof v === 'string' ? v : '';
        if (text === '') {
          if (f.required) errors[f.name] = { key: 'errRequired' };
          break;
        }
        const length = Array.from(text).length;
        if (f.minLength !== undefined && length < f.minLength) errors[f.name] = { key: 'errTooShort', min: f.minLength };
        else if (f.maxLength !== undefined && length > f.maxLength) errors[f.name] = { key: 'errTooLong', max: f.maxLength };
        else if (f.format === 'email' && !EMAIL.test(text)) errors[f.name] = { key: 'errEmail' };
        else if (f.format === 'uri' && !isUri(text)) errors[f.name] = { key: 'errUri' };
        if (f.format === 'date-time') {
          const d = new Date(text);
          values[f.name] = Number.isNaN(d.getTime()) ? text : d.toISOString();
        } else {
          values[f.name] = text;
        }
        break;
      }
      case 'number':
      case 'integer': {
        const text = typeof v === 'string' ? v.trim() : '';
        if (text === '') {
          if (f.required) errors[f.name] = { key: 'errRequired' };
          break;
        }
        const n = Number(text);
        if (!Number.isFinite(n)) errors[f.name] = { key: 'errNumber' };
        else if (f.kind === 'integer' && !Number.isInteger(n)) errors[f.name] = { key: 'errInteger' };
        else if (f.minimum !== undefined && n < f.minimum) errors[f.name] = { key: 'errTooSmall', min: f.minimum };
        else if (f.maximum !== undefined && n > f.maximum) errors[f.name] = { key: 'errTooLarge', max: f.maximum };
        values[f.name] = Number.isFinite(n) ? n : text;
        break;
      }
      case 'boolean':
        values[f.name] = v === true;
        break;
      case 'select': {
        const option = typeof v === 'string' && v !== '' ? f.options[Number(v)] : undefined;
        if (!option) {
          if (f.required) errors[f.name] = { key: 'errRequired' };
          break;
        }
        values[f.name] = option.value;
        break;
      }
      case 'multi': {
        const picked = Array.isArray(v) ? [...v].sort((a, b) => a - b) : [];
        const chosen = picked.map((i) => f.options[i]?.value).filter((x): x is string | number => x !== undefined);
        if (chosen.length === 0 && f.required && f.minItems === undefined) errors[f.name] = { key: 'errRequired' };
        else if (f.minItems !== undefined && chosen.length < f.minItems && (f.required || chosen.length > 0)) errors[f.name] = { key: 'errTooFew', min: f.minItems };
        else if (f.maxItems !== undefined && chosen.length > f.maxItems) errors[f.name] = { key: 'errTooMany', max: f.maxItems };
        if (chosen.length > 0 || f.required) values[f.name] = chosen;
        break;
      }
      default:
        break;
    }
  }
  return { values, errors };
}
