import { memo, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ArchiveIcon, ChevronLeftIcon, PlusIcon, SearchIcon, TesseraMark } from '../components/icons';
import { MemoryPanel } from '../memory/MemoryPanel';
import type { Project } from '../projects/api';
import { groupByProject } from '../projects/groups';
import { MoveToProject } from '../projects/MoveToProject';
import { ProjectsPanel } from '../projects/ProjectsPanel';
import { useProjects } from '../projects/useProjects';
import type { ConversationSummary, TesseraClient } from '../transport/client';
import { ConversationItem, type ItemAction } from './ConversationItem';
import { fileNameFor, saveExport, type ExportPlace } from './download';
import { ImportButton } from './ImportButton';
import { describeError, useConversationList, type Failure } from './useConversationList';

export interface SidebarProps {
  onNewConversation: () => void;
  /** The engine's API (null: not connected; the list is then empty and actions are off). */
  client?: TesseraClient | null | undefined;
  /** Every conversation, archived ones too, as the engine last listed them. */
  conversations?: ConversationSummary[] | undefined;
  selectedId?: string | null | undefined;
  onSelect?: ((id: string) => void) | undefined;
  /** Reads the engine's list again (after a change). */
  onRefresh?: (() => Promise<void>) | undefined;
  error?: string | null | undefined;
  /** The pointer or the keyboard reached the list: a conversation is likely to be opened next. */
  onIntent?: (() => void) | undefined;
  /** Starts a new conversation that goes into `project` once its first message creates it. */
  onNewConversationInProject?: ((project: Project) => void) | undefined;
}

function FailureText({ failure }: { failure: Failure }) {
  const { t } = useTranslation();
  const values = { title: failure.title, error: failure.error };
  switch (failure.kind) {
    case 'change':
      return <>{t('conversations.changeFailed', values)}</>;
    case 'delete':
      return <>{t('conversations.deleteFailed', values)}</>;
    case 'export':
      return <>{t('conversations.exportFailed', values)}</>;
  }
}

const noRefresh = async () => {};

/**
 * The conversation list: pinned first, then the most recently updated; searched on the engine
 * (titles and messages, Chinese too); each conversation can be renamed inline, pinned,
 * archived (the archived ones have a view of their own), exported, or deleted with a few
 * seconds to undo, or moved to a project; conversations can be imported from a file. The main
 * view groups them by project (a header per project, with a new chat in it), and the
 * Projects and Memory panels open from the footer.
 */
export const Sidebar = memo(function Sidebar({
  onNewConversation,
  client = null,
  conversations = [],
  selectedId = null,
  onSelect,
  onRefresh = noRefresh,
  error,
  onIntent,
  onNewConversationInProject,
}: SidebarProps) {
  const { t } = useTranslation();
  const searchId = useId();
  const list = useConversationList({
    client,
    conversations,
    selectedId,
    onDeselect: onNewConversation,
    refresh: onRefresh,
  });
  const trimmed = list.query.trim();
  const archivedView = list.view === 'archived';
  const [exported, setExported] = useState<ExportPlace | null>(null);
  const projects = useProjects(client);
  const [panelOpen, setPanelOpen] = useState(false);
  const [memoryOpen, setMemoryOpen] = useState(false);
  /** Projects created in this session: their header shows before they have conversations. */
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  /** The conversation whose project is being chosen. */
  const [moving, setMoving] = useState<string | null>(null);

  const moveTo = async (id: string, projectId: string | null) => {
    setMoving(null);
    if (!projects.api) return;
    const title = list.titleOf(id);
    try {
      await projects.api.moveConversation(id, projectId);
      await Promise.all([onRefresh(), projects.reload()]);
    } catch (err) {
      list.setFailure({ kind: 'change', title, error: describeError(err) });
    }
  };

  const act = async (id: string, action: Exclude<ItemAction, 'rename'>) => {
    const row = list.rows.find((r) => r.id === id);
    if (!row) return;
    switch (action) {
      case 'pin':
        return list.setPinned(id, !row.pinned);
      case 'archive':
        return list.setArchived(id, !row.archived);
      case 'delete':
        return list.remove(id);
      case 'move':
        return setMoving(id);
      case 'exportJson':
      case 'exportMarkdown': {
        if (!client) return;
        const markdown = action === 'exportMarkdown';
        try {
          const text = await client.exportConversation(id, markdown ? 'markdown' : 'context');
          const place = await saveExport(fileNameFor(row.title, markdown ? 'md' : 'json'), text, markdown ? 'text/markdown' : 'application/json');
          if (place) setExported(place);
        } catch (err) {
          list.setFailure({ kind: 'export', title: row.title, error: describeError(err) });
        }
      }
    }
  };

  const itemFor = (row: (typeof list.rows)[number]) => (
    <ConversationItem
      key={row.id}
      row={row}
      selected={row.id === selectedId}
      onSelect={() => onSelect?.(row.id)}
      onRename={(title) => void list.rename(row.id, title)}
      onAction={(action) => void act(row.id, action)}
    />
  );
  // By project in the main view; a search's answer and the archived view stay one list.
  const projectList = projects.projects ?? [];
  const grouped =
    !archivedView && !trimmed && (projectList.length > 0 || list.rows.some((r) => r.project_id !== null)) ? groupByProject(list.rows, projectList, fresh) : null;
  const movingRow = moving === null ? undefined : list.rows.find((r) => r.id === moving);

  const empty = trimmed ? (
    <p className="sidebar-empty">{t('sidebar.noMatches', { query: trimmed })}</p>
  ) : archivedView ? (
    <p className="sidebar-empty">{t('conversations.archivedEmpty')}</p>
  ) : (
    <div className="sidebar-empty">
      <p className="sidebar-empty-title">{t('sidebar.empty')}</p>
      <p className="sidebar-empty-hint">{t('sidebar.emptyHint')}</p>
    </div>
  );

  return (
    <nav className="sidebar" aria-label={t('sidebar.label')} data-testid="sidebar">
      <div className="sidebar-brand">
        <TesseraMark size={26} />
        <span className="sidebar-brand-name">{t('app.name')}</span>
      </div>

      <div className="sidebar-body">
        <button type="button" className="button new-conversation" onClick={onNewConversation}>
          <PlusIcon />
          <span>{t('sidebar.newConversation')}</span>
        </button>

        <div className="search-field">
          <label htmlFor={searchId} className="visually-hidden">
            {t('sidebar.searchLabel')}
          </label>
          <SearchIcon className="search-field-icon" />
          <input
            id={searchId}
            type="search"
            className="search-field-input"
            placeholder={t('sidebar.searchPlaceholder')}
            value={list.query}
            onChange={(event) => list.setQuery(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && list.query) {
                event.preventDefault();
                list.setQuery('');
              }
            }}
            autoComplete="off"
            spellCheck={false}
            data-testid="conversation-search"
          />
        </div>

        {archivedView && (
          <div className="sidebar-view-header">
            <button type="button" className="link-button" onClick={() => list.setView('active')} data-testid="archived-back">
              <ChevronLeftIcon />
              <span>{t('conversations.back')}</span>
            </button>
            <h2 className="sidebar-view-title">{t('conversations.archivedTitle')}</h2>
          </div>
        )}

        <div className="conversation-list" data-testid="conversation-list" aria-busy={list.searching} onPointerEnter={onIntent} onFocus={onIntent}>
          {error && (
            <p className="sidebar-empty" role="alert">
              {t('sidebar.loadFailed', { error })}
            </p>
          )}
          {list.searchError && (
            <p className="sidebar-empty" role="alert">
              {t('conversations.searchFailed', { error: list.searchError })}
            </p>
          )}
          {list.searching && list.rows.length === 0 ? (
            <p className="sidebar-empty" role="status">
              {t('conversations.searching')}
            </p>
          ) : list.rows.length > 0 || (grouped?.some((g) => g.id !== null) ?? false) ? (
            grouped ? (
              grouped.map((group) => {
                if (group.id === null && group.rows.length === 0) return null;
                const name = group.id === null ? t('projects.noProject') : (group.project?.name ?? t('projects.unknownProject'));
                const project = group.project;
                return (
                  <section key={group.id ?? ''} className="project-group" data-testid="project-group" data-project-id={group.id ?? ''}>
                    <div className="project-group-header">
                      <h3 className="project-group-title">{name}</h3>
                      {project && onNewConversationInProject && (
                        <button
                          type="button"
                          className="icon-button project-group-new"
                          aria-label={t('projects.newChatHereLabel', { name: project.name })}
                          title={t('projects.newChatHere')}
                          data-testid="project-new-chat"
                          onClick={() => onNewConversationInProject(project)}
                        >
                          <PlusIcon />
                        </button>
                      )}
                    </div>
                    {group.rows.length > 0 ? (
                      <ul className="conversation-items" aria-label={t('projects.groupLabel', { name })}>
                        {group.rows.map(itemFor)}
                      </ul>
                    ) : (
                      <p className="sidebar-empty-hint project-group-empty">{t('projects.groupEmpty')}</p>
                    )}
                  </section>
                );
              })
            ) : (
              <ul className="conversation-items" aria-label={archivedView ? t('conversations.archivedTitle') : t('sidebar.listLabel')}>
                {list.rows.map(itemFor)}
              </ul>
            )
          ) : (
            empty
          )}
        </div>

        <div className="sidebar-notices">
          {list.pending.map((p) => (
            <div key={p.id} className="notice undo-notice" role="status" data-testid="undo-notice">
              <span>{t('conversations.deleted', { title: p.title || t('sidebar.untitled') })}</span>
              <button type="button" className="link-button" onClick={() => list.undo(p.id)}>
                {t('conversations.undo')}
              </button>
            </div>
          ))}
          {exported && (
            <div className="notice notice-ok" role="status" data-testid="export-notice">
              <span>{exported.kind === 'saved' ? t('conversations.exportedTo', { path: exported.path }) : t('conversations.downloaded', { name: exported.name })}</span>
              <button type="button" className="link-button" onClick={() => setExported(null)}>
                {t('conversations.dismiss')}
              </button>
            </div>
          )}
          {list.failure && (
            <div className="notice notice-error" role="alert" data-testid="list-failure">
              <span>
                <FailureText failure={list.failure} />
              </span>
              <button type="button" className="link-button" onClick={() => list.setFailure(null)}>
                {t('conversations.dismiss')}
              </button>
            </div>
          )}
        </div>

        <div className="sidebar-footer">
          {client && (
            <button type="button" className="button sidebar-footer-button" onClick={() => setPanelOpen(true)} data-testid="open-projects">
              <span>{t('projects.open')}</span>
            </button>
          )}
          {client && (
            <button type="button" className="button sidebar-footer-button" onClick={() => setMemoryOpen(true)} data-testid="open-memory">
              <span>{t('memory.open')}</span>
            </button>
          )}
          {!archivedView && (
            <button type="button" className="button sidebar-footer-button" onClick={() => list.setView('archived')} data-testid="archived-view">
              <ArchiveIcon />
              <span>{t('conversations.archivedCount', { count: list.archivedCount })}</span>
            </button>
          )}
          <ImportButton
            client={client}
            onImported={async (id) => {
              list.setView('active');
              list.setQuery('');
              await onRefresh();
              onSelect?.(id);
            }}
          />
        </div>
      </div>
      {panelOpen && client && (
        <ProjectsPanel
          client={client}
          projects={projects.projects}
          loadError={projects.error}
          reload={projects.reload}
          onCreated={(project) => setFresh((current) => new Set([...current, project.id]))}
          onRemoved={() => void onRefresh()}
          onClose={() => setPanelOpen(false)}
        />
      )}
      {memoryOpen && client && (
        <MemoryPanel
          client={client}
          conversations={conversations}
          projects={projects.projects}
          onOpenConversation={onSelect}
          onClose={() => setMemoryOpen(false)}
        />
      )}
      {movingRow && (
        <MoveToProject
          title={movingRow.title || t('sidebar.untitled')}
          currentProjectId={movingRow.project_id}
          projects={projectList}
          onMove={(projectId) => void moveTo(movingRow.id, projectId)}
          onClose={() => setMoving(null)}
        />
      )}
    </nav>
  );
});
