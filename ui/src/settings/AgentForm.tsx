import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResponseFormat } from '../generated/ResponseFormat';
import type { SpecialistRole } from '../generated/SpecialistRole';
import type { JsonValue } from '../generated/serde_json/JsonValue';
import type { Profile, SpecialistSpec, ToolInfo } from './api';
import { Field, FormActions } from './fields';

export type AgentKind = 'profile' | 'specialist';

/** The fields both editors have, plus each one's own; what the form edits. */
export interface AgentDraft {
  name: string;
  title: string;
  description: string;
  system_prompt: string;
  model: string;
  /** null: every tool (profiles only). */
  tools: string[] | null;
  format: ResponseFormat['type'];
  schema: string;
  max_turns: string;
  role: SpecialistRole;
}

export function draftOfProfile(p: Profile | null): AgentDraft {
  const format = p?.response_format;
  return {
    name: p?.name ?? '',
    title: p?.title ?? '',
    description: p?.description ?? '',
    system_prompt: p?.system_prompt ?? '',
    model: p?.model ?? '',
    tools: p ? (p.tools ?? null) : null,
    format: format?.type === 'json' ? 'json' : 'text',
    schema: format?.type === 'json' ? JSON.stringify(format.schema, null, 2) : '{\n  "type": "object"\n}',
    max_turns: '',
    role: 'answer',
  };
}

export function draftOfSpecialist(s: SpecialistSpec | null): AgentDraft {
  return {
    name: s?.name ?? '',
    title: s?.title ?? '',
    description: s?.description ?? '',
    system_prompt: s?.system_prompt ?? '',
    model: s?.model ?? '',
    tools: s?.tools ?? [],
    format: 'text',
    schema: '',
    max_turns: String(s?.max_turns ?? 3),
    role: s?.role ?? 'answer',
  };
}

/** The draft as a profile, keeping what the form does not edit (rules, default, limits). */
export function profileOfDraft(d: AgentDraft, base: Profile | null): Profile | string {
  let response_format: ResponseFormat = { type: 'text' };
  if (d.format === 'json') {
    let schema: JsonValue;
    try {
      schema = JSON.parse(d.schema) as JsonValue;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    response_format = { type: 'json', schema };
  }
  const profile: Profile = {
    ...(base ?? {}),
    name: d.name.trim(),
    title: d.title,
    description: d.description,
    system_prompt: d.system_prompt,
    response_format,
  };
  if (d.model.trim()) profile.model = d.model.trim();
  else delete profile.model;
  if (d.tools === null) delete profile.tools;
  else profile.tools = d.tools;
  return profile;
}

export function specialistOfDraft(d: AgentDraft, base: SpecialistSpec | null): SpecialistSpec {
  const spec: SpecialistSpec = {
    ...(base ?? {}),
    name: d.name.trim(),
    title: d.title,
    description: d.description,
    system_prompt: d.system_prompt,
    tools: d.tools ?? [],
    max_turns: Number(d.max_turns),
    role: d.role,
  };
  if (d.model.trim()) spec.model = d.model.trim();
  else delete spec.model;
  return spec;
}

/** Where a server problem's field (`response_format.schema`, `tools[2]`) shows in the form. */
export function formField(field: string): keyof AgentDraft | 'form' {
  const head = field.split(/[.[]/)[0] ?? '';
  switch (head) {
    case 'name':
    case 'title':
    case 'description':
    case 'system_prompt':
    case 'model':
    case 'tools':
    case 'max_turns':
    case 'role':
      return head;
    case 'response_format':
      return field.includes('schema') ? 'schema' : 'format';
    default:
      return 'form';
  }
}

export type DraftErrors = Partial<Record<keyof AgentDraft | 'form', string>>;

export interface AgentFormProps {
  kind: AgentKind;
  initial: AgentDraft;
  isNew: boolean;
  tools: ToolInfo[];
  errors: DraftErrors;
  busy: boolean;
  onSubmit: (draft: AgentDraft) => void;
  onCancel: () => void;
}

/** Edits one profile or specialist; the server checks it and names each problem's field. */
export function AgentForm({ kind, initial, isNew, tools, errors, busy, onSubmit, onCancel }: AgentFormProps) {
  const { t } = useTranslation();
  const [d, setD] = useState(initial);
  const [localErrors, setLocalErrors] = useState<DraftErrors>({});
  const toolsErrorId = useId();
  const set = <K extends keyof AgentDraft>(key: K, value: AgentDraft[K]) => setD((prev) => ({ ...prev, [key]: value }));
  const shown: DraftErrors = { ...errors, ...localErrors };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing: DraftErrors = {};
    for (const key of ['name', 'title', 'description'] as const) if (!d[key].trim()) missing[key] = t('settings.required');
    if (kind === 'specialist' && !/^\d+$/.test(d.max_turns.trim())) missing.max_turns = t('agents.wholeNumber');
    if (kind === 'profile' && d.format === 'json') {
      try {
        JSON.parse(d.schema);
      } catch {
        missing.schema = t('agents.schemaNotJson');
      }
    }
    setLocalErrors(missing);
    if (Object.keys(missing).length === 0) onSubmit(d);
  };

  const allTools = d.tools === null;
  const toggleTool = (name: string, on: boolean) => {
    const current = d.tools ?? [];
    set('tools', on ? [...current, name] : current.filter((x) => x !== name));
  };

  return (
    <form className="settings-form" aria-label={isNew ? t(kind === 'profile' ? 'agents.newProfile' : 'agents.newSpecialist') : t('agents.editLabel', { name: initial.name })} onSubmit={submit} noValidate>
      <Field label={t('agents.name')} error={shown.name}>
        <input className="settings-input" value={d.name} readOnly={!isNew} onChange={(e) => set('name', e.target.value)} autoComplete="off" spellCheck={false} />
      </Field>
      <Field label={t('agents.title')} error={shown.title}>
        <input className="settings-input" value={d.title} onChange={(e) => set('title', e.target.value)} />
      </Field>
      <Field label={t('agents.description')} error={shown.description}>
        <textarea className="settings-input" rows={2} value={d.description} onChange={(e) => set('description', e.target.value)} />
      </Field>
      <Field label={t('agents.systemPrompt')} error={shown.system_prompt}>
        <textarea className="settings-input" rows={5} value={d.system_prompt} onChange={(e) => set('system_prompt', e.target.value)} />
      </Field>
      <Field label={t('agents.model')} error={shown.model} hint={t('agents.modelHint')}>
        <input className="settings-input" value={d.model} onChange={(e) => set('model', e.target.value)} autoComplete="off" spellCheck={false} />
      </Field>
      <fieldset className="settings-fieldset" aria-describedby={shown.tools ? toolsErrorId : undefined}>
        <legend className="settings-label">{t('agents.tools')}</legend>
        {kind === 'profile' && (
          <label className="settings-check">
            <input type="checkbox" checked={allTools} onChange={(e) => set('tools', e.target.checked ? null : [])} />
            {t('agents.allTools')}
          </label>
        )}
        {!allTools && (
          <div className="settings-tool-grid">
            {tools.map((tool) => (
              <label key={tool.name} className="settings-check" title={tool.description}>
                <input type="checkbox" checked={d.tools?.includes(tool.name) ?? false} onChange={(e) => toggleTool(tool.name, e.target.checked)} />
                {tool.name}
              </label>
            ))}
          </div>
        )}
        {shown.tools && (
          <p id={toolsErrorId} className="field-error">
            {shown.tools}
          </p>
        )}
      </fieldset>
      {kind === 'profile' && (
        <>
          <Field label={t('agents.responseFormat')} error={shown.format}>
            <select className="settings-input" value={d.format} onChange={(e) => set('format', e.target.value === 'json' ? 'json' : 'text')}>
              <option value="text">{t('agents.formatText')}</option>
              <option value="json">{t('agents.formatJson')}</option>
            </select>
          </Field>
          {d.format === 'json' && (
            <Field label={t('agents.schema')} error={shown.schema}>
              <textarea className="settings-input settings-code" rows={6} value={d.schema} onChange={(e) => set('schema', e.target.value)} spellCheck={false} />
            </Field>
          )}
        </>
      )}
      {kind === 'specialist' && (
        <>
          <Field label={t('agents.maxTurns')} error={shown.max_turns}>
            <input className="settings-input" inputMode="numeric" value={d.max_turns} onChange={(e) => set('max_turns', e.target.value)} />
          </Field>
          <Field label={t('agents.role')} error={shown.role}>
            <select className="settings-input" value={d.role} onChange={(e) => set('role', e.target.value === 'plan' ? 'plan' : 'answer')}>
              <option value="answer">{t('agents.roleAnswer')}</option>
              <option value="plan">{t('agents.rolePlan')}</option>
            </select>
          </Field>
        </>
      )}
      <FormActions submitText={t('settings.save')} busy={busy} error={shown.form} onCancel={onCancel} />
    </form>
  );
}
