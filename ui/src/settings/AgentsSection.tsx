import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { agentTitle } from '../i18n/builtinNames';
import type { AgentProblem, Profile, SettingsApi, SpecialistSpec, ToolInfo } from './api';
import { problemsOf } from './api';
import { AgentForm, draftOfProfile, draftOfSpecialist, formField, profileOfDraft, specialistOfDraft, type AgentDraft, type AgentKind, type DraftErrors } from './AgentForm';
import { ErrorNotice, SavedNote, isApiError, messageOf } from './fields';

type Agent = Profile | SpecialistSpec;

interface Editing {
  /** null: a new one. */
  name: string | null;
  errors: DraftErrors;
}

/** A list as the server answers it; `builtin`: the names that stay whatever is saved. */
interface Listed<T extends Agent> {
  items: T[];
  custom: boolean;
  builtin: string[];
}

interface Store<T extends Agent> {
  load: () => Promise<Listed<T>>;
  save: (items: T[]) => Promise<Listed<T>>;
  reset: () => Promise<Listed<T>>;
  draftOf: (item: T | null) => AgentDraft;
  /** The item from the draft, or why it cannot be made. */
  fromDraft: (draft: AgentDraft, base: T | null) => T | string;
  /** Whether a problem of the server is about `name` (at `index` in the list sent). */
  concerns: (problem: AgentProblem, name: string, index: number) => boolean;
}

function AgentList<T extends Agent>({ kind, store, tools }: { kind: AgentKind; store: Store<T>; tools: ToolInfo[] }) {
  const { t } = useTranslation();
  const [items, setItems] = useState<T[] | null>(null);
  const [custom, setCustom] = useState(false);
  const [builtin, setBuiltin] = useState<string[]>([]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [otherProblems, setOtherProblems] = useState<AgentProblem[]>([]);
  const [busy, setBusy] = useState(false);
  const headingId = `agents-${kind}`;

  useEffect(() => {
    let live = true;
    store.load().then(
      (answer) => {
        if (!live) return;
        setItems(answer.items);
        setCustom(answer.custom);
        setBuiltin(answer.builtin);
      },
      (err: unknown) => live && setError(t('settings.loadFailed', { error: messageOf(err) })),
    );
    return () => {
      live = false;
    };
  }, [store, t]);

  const apply = async (next: T[], done: string, editedName: string | null) => {
    setBusy(true);
    setError(null);
    setNote(null);
    setOtherProblems([]);
    try {
      const answer = await store.save(next);
      setItems(answer.items);
      setCustom(answer.custom);
      setBuiltin(answer.builtin);
      setEditing(null);
      setNote(done);
      return answer.items;
    } catch (err) {
      const problems = isApiError(err, 400) ? problemsOf(err.details) : [];
      if (problems.length > 0 && editedName !== null) {
        const index = next.findIndex((item) => item.name === editedName);
        const mine = problems.filter((p) => store.concerns(p, editedName, index));
        const errors: DraftErrors = {};
        for (const p of mine) {
          const field = formField(p.field);
          errors[field] = errors[field] ? `${errors[field]}; ${p.message}` : p.message;
        }
        setEditing((e) => (e ? { ...e, errors } : e));
        setOtherProblems(problems.filter((p) => !mine.includes(p)));
      } else if (problems.length > 0) {
        setOtherProblems(problems);
      } else {
        setEditing((e) => (e ? { ...e, errors: { form: messageOf(err) } } : e));
        if (!editing) setError(messageOf(err));
      }
      return null;
    } finally {
      setBusy(false);
    }
  };

  const submit = (draft: AgentDraft) => {
    if (!items || !editing) return;
    const base = editing.name === null ? null : (items.find((i) => i.name === editing.name) ?? null);
    const item = store.fromDraft(draft, base);
    if (typeof item === 'string') {
      setEditing({ ...editing, errors: { schema: item } });
      return;
    }
    const next = base ? items.map((i) => (i.name === base.name ? item : i)) : [...items, item];
    void apply(next, t('agents.saved', { name: item.name }), item.name);
  };

  const remove = async (name: string) => {
    if (!items || !window.confirm(t('agents.deleteConfirm', { name }))) return;
    await apply(
      items.filter((i) => i.name !== name),
      t('agents.deleted', { name }),
      null,
    );
  };

  // Why an item's Delete could do nothing: there must be a profile; a built-in specialist stays.
  const undeletable = (name: string) =>
    kind === 'profile' ? (items?.length ?? 0) <= 1 && t('agents.onlyProfile') : builtin.includes(name) && t('agents.builtinKept');

  const reset = async () => {
    if (!window.confirm(t('agents.restoreConfirm'))) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await store.reset();
      setItems(answer.items);
      setCustom(answer.custom);
      setBuiltin(answer.builtin);
      setEditing(null);
      setNote(t('agents.restored'));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const edited = editing && items ? (editing.name === null ? null : (items.find((i) => i.name === editing.name) ?? null)) : null;
  return (
    <section className="settings-group" aria-labelledby={headingId}>
      <h3 id={headingId} className="settings-group-title">
        {t(kind === 'profile' ? 'agents.profiles' : 'agents.specialists')}
      </h3>
      <p className="settings-hint">{t(kind === 'profile' ? 'agents.profilesHint' : 'agents.specialistsHint')}</p>
      <p className="settings-hint">{custom ? t('agents.customSet') : t('agents.builtinSet')}</p>
      <ErrorNotice message={error} />
      <SavedNote message={note} />
      {otherProblems.length > 0 && (
        <ul className="notice notice-error" role="alert">
          {otherProblems.map((p, i) => (
            <li key={i}>
              {(p.profile ?? p.specialist ?? '') && `${p.profile ?? p.specialist}: `}
              {p.field && `${p.field}: `}
              {p.message}
            </li>
          ))}
        </ul>
      )}
      {items && (
        <ul className="settings-list" aria-label={t(kind === 'profile' ? 'agents.profiles' : 'agents.specialists')}>
          {items.map((item) => {
            const kept = undeletable(item.name);
            const whyId = `${headingId}-${item.name}-kept`;
            const title = agentTitle(t, item.name, item.title);
            return (
              <li key={item.name} className="settings-list-row">
                <span className="settings-list-label">
                  <span className="settings-list-name">{title}</span>
                  <code className="settings-hint">{item.name}</code>
                  {kept && (
                    <span id={whyId} className="settings-hint">
                      {kept}
                    </span>
                  )}
                </span>
                {'default' in item && item.default && <span className="settings-badge">{t('agents.defaultBadge')}</span>}
                {kind === 'specialist' && builtin.includes(item.name) && <span className="settings-badge">{t('agents.builtinBadge')}</span>}
                <button type="button" className="button button-secondary button-small" aria-label={t('agents.editLabel', { name: title })} onClick={() => setEditing({ name: item.name, errors: {} })}>
                  {t('agents.edit')}
                </button>
                <button
                  type="button"
                  className="button button-secondary button-small button-danger"
                  disabled={busy || Boolean(kept)}
                  aria-label={t('agents.deleteLabel', { name: title })}
                  aria-describedby={kept ? whyId : undefined}
                  onClick={() => void remove(item.name)}
                >
                  {t('agents.delete')}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div className="settings-actions">
        <button type="button" className="button button-secondary" onClick={() => setEditing({ name: null, errors: {} })}>
          {t(kind === 'profile' ? 'agents.addProfile' : 'agents.addSpecialist')}
        </button>
        {custom && (
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => void reset()}>
            {t('agents.restore')}
          </button>
        )}
      </div>
      {editing && (
        <AgentForm
          key={editing.name ?? '(new)'}
          kind={kind}
          initial={store.draftOf(edited)}
          isNew={editing.name === null}
          tools={tools}
          errors={editing.errors}
          busy={busy}
          onSubmit={submit}
          onCancel={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function profileStore(a: SettingsApi): Store<Profile> {
  return {
    load: async () => {
      const r = await a.profiles();
      return { items: r.profiles, custom: r.custom, builtin: [] };
    },
    save: async (items) => {
      const r = await a.saveProfiles(items);
      return { items: r.profiles, custom: r.custom, builtin: [] };
    },
    reset: async () => {
      const r = await a.resetProfiles();
      return { items: r.profiles, custom: r.custom, builtin: [] };
    },
    draftOf: draftOfProfile,
    fromDraft: profileOfDraft,
    // A profile without a usable name is named by its place (`#3`).
    concerns: (p, name, index) => p.profile === name || p.profile === `#${index}`,
  };
}

function specialistStore(a: SettingsApi): Store<SpecialistSpec> {
  return {
    load: async () => {
      const r = await a.specialists();
      return { items: r.specialists, custom: r.custom, builtin: r.builtin ?? [] };
    },
    save: async (items) => {
      const r = await a.saveSpecialists(items);
      return { items: r.specialists, custom: r.custom, builtin: r.builtin ?? [] };
    },
    reset: async () => {
      const r = await a.resetSpecialists();
      return { items: r.specialists, custom: r.custom, builtin: r.builtin ?? [] };
    },
    draftOf: draftOfSpecialist,
    fromDraft: specialistOfDraft,
    concerns: (p, name, index) => p.specialist === name || p.index === index,
  };
}

/** Agent profiles and specialists: view, edit, add, delete, restore the built-ins. */
export function AgentsSection({ api }: { api: SettingsApi | null }) {
  const { t } = useTranslation();
  const [tools, setTools] = useState<ToolInfo[]>([]);

  useEffect(() => {
    if (!api) return;
    let live = true;
    api.tools().then(
      (list) => live && setTools(list),
      () => live && setTools([]),
    );
    return () => {
      live = false;
    };
  }, [api]);

  // Stable per client, so each list loads once.
  const stores = useMemo(() => (api ? { p: profileStore(api), s: specialistStore(api) } : null), [api]);

  if (!stores) return <p className="settings-hint">{t('settings.notConnected')}</p>;
  return (
    <>
      <AgentList kind="profile" store={stores.p} tools={tools} />
      <AgentList kind="specialist" store={stores.s} tools={tools} />
    </>
  );
}
