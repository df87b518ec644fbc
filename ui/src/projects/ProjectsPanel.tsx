import { useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Overlay } from '../components/Overlay';
import { useModalFocus } from '../components/useModalFocus';
import type { TesseraClient } from '../transport/client';
import { ProjectsApi, projectErrorText, type Project } from './api';
import { ProjectView } from './ProjectView';
import './projects.css';

export interface ProjectsPanelProps {
  client: TesseraClient;
  /** The projects as last listed (null: not yet). */
  projects: Project[] | null;
  loadError?: string | null | undefined;
  /** Lists the projects again. */
  reload: () => Promise<void>;
  /** A project was created here (the sidebar shows its header before it has conversations). */
  onCreated?: ((project: Project) => void) | undefined;
  /** A project was removed: its conversations are in no project now. */
  onRemoved?: ((project: Project) => void) | undefined;
  /** The project shown first. */
  initialProject?: string | null | undefined;
  onClose: () => void;
}

/**
 * The projects, as a dialog: the list, a form to create one (a name and instructions), and the
 * chosen one's instructions, folders and index.
 */
export function ProjectsPanel({ client, projects, loadError, reload, onCreated, onRemoved, initialProject = null, onClose }: ProjectsPanelProps) {
  const { t } = useTranslation();
  const api = useMemo(() => ProjectsApi.of(client), [client]);
  const ref = useRef<HTMLDivElement | null>(null);
  useModalFocus(ref);
  const titleId = useId();
  const nameId = useId();
  const instructionsId = useId();
  const [selected, setSelected] = useState<string | null>(initialProject);
  const [name, setName] = useState('');
  const [instructions, setInstructions] = useState('');
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string | null>(null);
  const [created, setCreated] = useState<string | null>(null);

  const shown = selected ?? projects?.[0]?.id ?? null;
  const current = projects?.find((p) => p.id === shown) ?? null;

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return;
    setCreating(true);
    setCreateError(null);
    setCreated(null);
    try {
      const project = await api.create(instructions.trim() ? { name: trimmed, instructions } : { name: trimmed });
      setName('');
      setInstructions('');
      setCreated(project.name);
      setSelected(project.id);
      onCreated?.(project);
      await reload();
    } catch (err) {
      setCreateError(projectErrorText(t, err));
    } finally {
      setCreating(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    }
  };

  return (
    <Overlay>
      <div className="dialog-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
        <div ref={ref} className="dialog projects-panel" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown} data-testid="projects-panel">
          <div className="projects-header">
            <h2 id={titleId} className="dialog-title">
              {t('projects.title')}
            </h2>
            <button type="button" className="button button-secondary button-small" onClick={onClose}>
              {t('projects.close')}
            </button>
          </div>
          <div className="projects-columns">
            <div className="projects-side">
              <form className="project-form" onSubmit={(e) => void create(e)} aria-label={t('projects.newTitle')}>
                <h3 className="knowledge-subtitle">{t('projects.newTitle')}</h3>
                <label htmlFor={nameId}>{t('projects.name')}</label>
                <input id={nameId} type="text" value={name} maxLength={200} autoComplete="off" onChange={(e) => setName(e.target.value)} data-testid="project-name" />
                <label htmlFor={instructionsId}>{t('projects.instructions')}</label>
                <textarea id={instructionsId} rows={3} value={instructions} placeholder={t('projects.instructionsHint')} onChange={(e) => setInstructions(e.target.value)} data-testid="project-new-instructions" />
                <button type="submit" className="button button-primary button-small" disabled={creating || name.trim() === ''}>
                  {creating ? t('projects.creating') : t('projects.create')}
                </button>
                {created && (
                  <p role="status" className="project-hint">
                    {t('projects.created', { name: created })}
                  </p>
                )}
                {createError && (
                  <p className="notice notice-error" role="alert" data-testid="project-create-error">
                    {t('projects.createFailed', { error: createError })}
                  </p>
                )}
              </form>

              {loadError && (
                <p className="notice notice-error" role="alert">
                  {t('projects.loadFailed', { error: loadError })}
                </p>
              )}
              {projects === null && !loadError ? (
                <p role="status">{t('projects.loading')}</p>
              ) : projects && projects.length === 0 ? (
                <p className="project-hint">{t('projects.none')}</p>
              ) : (
                <ul className="project-list" aria-label={t('projects.listLabel')} data-testid="project-list">
                  {projects?.map((p) => (
                    <li key={p.id}>
                      <button type="button" className="project-list-item" aria-current={p.id === shown ? 'true' : undefined} onClick={() => setSelected(p.id)}>
                        <span className="project-list-name">{p.name}</span>
                        <span className="project-list-count">{t('projects.conversationCount', { count: p.conversations })}</span>
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
            <div className="projects-main">
              {current && (
                <ProjectView
                  key={current.id}
                  api={api}
                  projectId={current.id}
                  onChanged={() => void reload()}
                  onRemoved={() => {
                    setSelected(null);
                    onRemoved?.(current);
                    void reload();
                  }}
                />
              )}
            </div>
          </div>
        </div>
      </div>
    </Overlay>
  );
}
