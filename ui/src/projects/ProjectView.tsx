import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { InlineConfirm } from '../components/InlineConfirm';
import { projectErrorText, type ProjectDetail, type ProjectsApi } from './api';
import { KnowledgeState } from './KnowledgeState';
import { canPickFolder, isAbsolutePath, pickFolder } from './pickFolder';

/** How often the index's state is read again while it is not idle. */
export const POLL_MS = 1_000;

export interface ProjectViewProps {
  api: ProjectsApi;
  /** The project's id. */
  projectId: string;
  /** The project changed (instructions, folders): the list reads it again. */
  onChanged: () => void;
  /** The project was removed. */
  onRemoved: () => void;
}

/**
 * One project: its instructions, its folders and the state of their index (read again every
 * second until nothing is pending), adding a folder by its path, and removing the project.
 */
export function ProjectView({ api, projectId, onChanged, onRemoved }: ProjectViewProps) {
  const { t } = useTranslation();
  const [detail, setDetail] = useState<ProjectDetail | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  /** The instructions as being edited (null: as saved). */
  const [draft, setDraft] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const instructionsId = useId();
  const pathId = useId();
  const pathHintId = useId();

  const load = useCallback(async () => {
    try {
      const next = await api.detail(projectId);
      setDetail(next);
      setLoadError(null);
    } catch (err) {
      setLoadError(projectErrorText(t, err));
    }
  }, [api, projectId, t]);

  useEffect(() => {
    void load();
  }, [load]);

  // While files wait or a scan runs, the state is read again every second.
  const idle = detail?.knowledge.idle ?? true;
  useEffect(() => {
    if (idle) return;
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [idle, load]);

  const run = async (work: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (err) {
      setError(projectErrorText(t, err));
      return false;
    } finally {
      setBusy(false);
    }
  };

  if (!detail) {
    return (
      <section className="project-view" data-testid="project-view">
        {loadError ? (
          <p className="notice notice-error" role="alert">
            {t('projects.statusFailed', { error: loadError })}
          </p>
        ) : (
          <p role="status">{t('projects.loading')}</p>
        )}
      </section>
    );
  }

  const project = detail.project;
  const instructions = draft ?? project.instructions;

  const saveInstructions = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const ok = await run(async () => {
      await api.edit(project.id, { instructions });
      await load();
    });
    if (ok) {
      setDraft(null);
      setSaved(true);
      onChanged();
    }
  };

  const addFolder = async (event: FormEvent) => {
    event.preventDefault();
    const typed = path.trim();
    if (!typed) return;
    if (!isAbsolutePath(typed)) {
      setError(t('projects.pathNotAbsolute'));
      return;
    }
    const ok = await run(async () => {
      await api.addSource(project.id, typed);
      await load();
    });
    if (ok) {
      setPath('');
      onChanged();
    }
  };

  const browse = async () => {
    try {
      const chosen = await pickFolder(t('projects.browse'));
      if (chosen) setPath(chosen);
    } catch (error) {
      setError(String(error));
    }
  };

  const removeFolder = async (source: string) => {
    if (
      await run(async () => {
        await api.removeSource(project.id, source);
        await load();
      })
    )
      onChanged();
  };

  return (
    <section className="project-view" aria-label={t('projects.detailLabel', { name: project.name })} data-testid="project-view">
      <h3 className="project-view-title">{project.name}</h3>

      <form className="project-form" onSubmit={(e) => void saveInstructions(e)}>
        <label htmlFor={instructionsId}>{t('projects.instructions')}</label>
        <textarea
          id={instructionsId}
          className="project-instructions"
          rows={4}
          value={instructions}
          onChange={(e) => {
            setDraft(e.target.value);
            setSaved(false);
          }}
          data-testid="project-instructions"
        />
        <div className="project-actions">
          <button type="submit" className="button button-secondary button-small" disabled={busy || draft === null}>
            {t('projects.save')}
          </button>
          {saved && <span role="status">{t('projects.saved')}</span>}
        </div>
      </form>

      <h4 className="knowledge-subtitle">{t('projects.folders')}</h4>
      {project.sources.length === 0 ? (
        <p className="project-hint">{t('projects.noFolders')}</p>
      ) : (
        <ul className="project-sources" data-testid="project-sources">
          {project.sources.map((s) => (
            <li key={s.path}>
              <span className="knowledge-path">{s.path}</span>
              <button type="button" className="button button-secondary button-small" disabled={busy} aria-label={t('projects.removeFolderLabel', { path: s.path })} onClick={() => void removeFolder(s.path)}>
                {t('projects.removeFolder')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="project-add-folder" onSubmit={(e) => void addFolder(e)}>
        <label htmlFor={pathId}>{t('projects.folderPath')}</label>
        <div className="project-add-row">
          <input
            id={pathId}
            type="text"
            value={path}
            placeholder="/home/…"
            aria-describedby={pathHintId}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => setPath(e.target.value)}
            data-testid="project-folder-path"
          />
          {canPickFolder() && (
            <button type="button" className="button button-secondary button-small" onClick={() => void browse()}>
              {t('projects.browse')}
            </button>
          )}
          <button type="submit" className="button button-secondary button-small" disabled={busy || path.trim() === ''}>
            {t('projects.addFolder')}
          </button>
        </div>
        <p id={pathHintId} className="project-hint">
          {t('projects.folderPathHint')}
        </p>
      </form>

      {error && (
        <p className="notice notice-error" role="alert" data-testid="project-error">
          {error}
        </p>
      )}
      {loadError && (
        <p className="notice notice-error" role="alert">
          {t('projects.statusFailed', { error: loadError })}
        </p>
      )}

      <h4 className="knowledge-subtitle">{t('projects.index')}</h4>
      <KnowledgeState
        status={detail.knowledge}
        controls={{
          pause: () => run(async () => { await api.pause(); await load(); }),
          resume: () => run(async () => { await api.resume(); await load(); }),
          setEmbedding: (choice) => run(async () => { await api.setEmbedding(choice); await load(); }),
        }}
      />

      <div className="project-remove">
        <InlineConfirm
          label={t('projects.remove')}
          question={t('projects.removeQuestion', { name: project.name })}
          confirmText={t('projects.removeConfirm')}
          keepText={t('projects.keep')}
          disabled={busy}
          onConfirm={async () => {
            if (await run(() => api.remove(project.id))) onRemoved();
          }}
        />
      </div>
    </section>
  );
}
