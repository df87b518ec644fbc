import { useId, useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Overlay } from '../components/Overlay';
import { useModalFocus } from '../components/useModalFocus';
import type { Project } from './api';

export interface MoveToProjectProps {
  title: string;
  /** The conversation's project now. */
  currentProjectId: string | null;
  projects: Project[];
  /** The project's id, or null for none. */
  onMove: (projectId: string | null) => void;
  onClose: () => void;
}

/** Where to move a conversation: one of the projects, or none. */
export function MoveToProject({ title, currentProjectId, projects, onMove, onClose }: MoveToProjectProps) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement | null>(null);
  useModalFocus(ref);
  const titleId = useId();
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    }
  };
  const choice = (id: string | null, label: string) => (
    <li key={id ?? ''}>
      <button type="button" className="project-list-item" aria-current={id === currentProjectId ? 'true' : undefined} data-project-id={id ?? ''} onClick={() => onMove(id)}>
        <span className="project-list-name">{label}</span>
        {id === currentProjectId && <span className="project-list-count">{t('projects.moveCurrent')}</span>}
      </button>
    </li>
  );
  return (
    <Overlay>
      <div className="dialog-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
        <div ref={ref} className="dialog move-to-project" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown} data-testid="move-to-project">
          <h2 id={titleId} className="dialog-title">
            {t('projects.moveTitle', { title })}
          </h2>
          {projects.length === 0 && <p className="project-hint">{t('projects.none')}</p>}
          <ul className="project-list">
            {projects.map((p) => choice(p.id, p.name))}
            {choice(null, t('projects.noProject'))}
          </ul>
          <div className="dialog-actions">
            <button type="button" className="button button-secondary" onClick={onClose}>
              {t('projects.moveCancel')}
            </button>
          </div>
        </div>
      </div>
    </Overlay>
  );
}
