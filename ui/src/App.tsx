import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FirstRun } from './chat/FirstRun';
import { useChatSession } from './chat/useChatSession';
import { ChatView } from './components/ChatView';
import { FontWarmup } from './components/FontWarmup';
import { SettingsIcon } from './components/icons';
import { ShortcutsSheet } from './components/ShortcutsSheet';
import { copyText } from './components/clipboard';
import { toAttachment, type PendingFile } from './components/attachments';
import { ModelPicker } from './components/ModelPicker';
import { useImageInput } from './components/useImageInput';
import { LanguageSelect, ThemeSelect } from './components/Settings';
import { Sidebar } from './conversations/Sidebar';
import { LazyPart } from './lazy/ChunkBoundary';
import { ConversationPane, SettingsPage, preloadConversationPane } from './lazy/pages';
import { type Project } from './projects/api';
import { OpenSettingsContext } from './settings/openSettings';
import type { SectionId } from './settings/SettingsPage';
import { applyTheme, readThemeChoice, saveThemeChoice, type ThemeChoice } from './theme';
import type { TesseraClient } from './transport/client';
import { WebToolsAnnouncer } from './webtools/announcer';
import { WebToolsHost } from './webtools/WebToolsHost';

export interface AppProps {
  /** The engine's API; without one (no token) the app says it is not connected. */
  client?: TesseraClient | null;
}

export function App({ client = null }: AppProps) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState('');
  const [theme, setTheme] = useState<ThemeChoice>(() => readThemeChoice());
  const [stopError, setStopError] = useState<string | null>(null);
  const [view, setView] = useState<'chat' | 'settings'>('chat');
  /** The section Settings opens at; bumped with each opening so it opens there again. */
  const [settingsAt, setSettingsAt] = useState<{ section: SectionId; n: number }>({ section: 'general', n: 0 });
  const openSettings = useCallback((section: SectionId) => {
    setSettingsAt((at) => ({ section, n: at.n + 1 }));
    setView('settings');
  }, []);
  const composerRef = useRef<HTMLTextAreaElement | null>(null);
  const announcer = useMemo(() => (client ? new WebToolsAnnouncer(client) : null), [client]);
  /** A new conversation started from a project's header: its first message names the project, so it starts there. */
  const [newIn, setNewIn] = useState<Project | null>(null);
  const newInRef = useRef<Project | null>(null);
  useLayoutEffect(() => {
    newInRef.current = newIn;
  }, [newIn]);
  const [moveError, setMoveError] = useState<string | null>(null);
  const refreshRef = useRef<() => Promise<void>>(() => Promise.resolve());
  const projectForNew = useCallback(() => newInRef.current?.id, []);
  const onCreated = useCallback(() => {
    if (!newInRef.current) return;
    newInRef.current = null;
    setNewIn(null);
    void refreshRef.current();
  }, []);
  const session = useChatSession(client, { beforeSend: announcer?.ensure, onCreated, projectForNew });
  useLayoutEffect(() => {
    refreshRef.current = session.refreshList;
  }, [session.refreshList]);

  useEffect(() => {
    applyTheme(theme);
  }, [theme]);

  useEffect(() => {
    document.title = t('app.name');
  }, [t]);

  const focusComposer = () => composerRef.current?.focus();

  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [shortcutNote, setShortcutNote] = useState('');
  const newConversationRef = useRef<() => void>(() => undefined);

  // The desktop shortcuts (⌘ on macOS): Ctrl+, Settings, Ctrl+N a new conversation, Ctrl+K
  // search, Ctrl+Shift+C copy the last answer, ? the list of them.
  useEffect(() => {
    const typing = (target: EventTarget | null) =>
      target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
    const onKey = (event: KeyboardEvent) => {
      const mod = (event.ctrlKey || event.metaKey) && !event.altKey;
      const key = event.key.toLowerCase();
      if (mod && event.key === ',') {
        event.preventDefault();
        openSettings('general');
      } else if (mod && !event.shiftKey && key === 'n') {
        event.preventDefault();
        setView('chat');
        newConversationRef.current();
      } else if (mod && !event.shiftKey && key === 'k') {
        event.preventDefault();
        setView('chat');
        // From the settings page the sidebar comes back first: a task later (not a frame, which
        // a window that is not shown never draws).
        const search = () => document.querySelector<HTMLInputElement>('[data-testid="sidebar"] .search-field input');
        const now = search();
        if (now) now.focus();
        else setTimeout(() => search()?.focus(), 0);
      } else if (mod && event.shiftKey && key === 'c') {
        const answers = document.querySelectorAll<HTMLElement>('[data-testid="assistant-message"] .markdown');
        const last = answers[answers.length - 1];
        if (!last) return;
        event.preventDefault();
        copyText(last.innerText.trim()).then(
          () => setShortcutNote(t('shortcuts.copiedLast')),
          () => setShortcutNote(t('chat.copyFailed')),
        );
      } else if (event.key === '?' && !mod && !typing(event.target) && !document.querySelector('[role="dialog"]')) {
        event.preventDefault();
        setShortcutsOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [t, openSettings]);

  // At launch the keyboard is where the person types (a first run's panel or a dialog that took
  // it first keeps it).
  useEffect(() => {
    if (document.activeElement === null || document.activeElement === document.body) focusComposer();
  }, []);

  // Back in the chat, the keyboard is where the person types.
  const viewRef = useRef(view);
  useEffect(() => {
    if (viewRef.current !== view && view === 'chat') focusComposer();
    viewRef.current = view;
  }, [view]);

  // While an answer streams the app renders once a frame; what takes these stays as it was
  // (memoised), so the sidebar, header and composer are not rendered again with it.
  const { select, send, stop } = session;
  const changeTheme = useCallback((choice: ThemeChoice) => {
    saveThemeChoice(choice);
    setTheme(choice);
  }, []);

  const startNewConversation = useCallback(() => {
    setDraft('');
    setNewIn(null);
    setMoveError(null);
    select(null);
    focusComposer();
  }, [select]);
  const startInProject = useCallback(
    (project: Project) => {
      startNewConversation();
      setNewIn(project);
    },
    [startNewConversation],
  );
  // Before any key can be pressed, and never from a render React may throw away.
  useLayoutEffect(() => {
    newConversationRef.current = startNewConversation;
  }, [startNewConversation]);

  const selectConversation = useCallback(
    (id: string) => {
      setStopError(null);
      setNewIn(null);
      select(id);
    },
    [select],
  );

  const sendDraft = useMemo(() => (client ? (text: string, files: PendingFile[]) => void send(text, files.map(toAttachment)) : undefined), [client, send]);

  const stopRun = useCallback(() => {
    setStopError(null);
    stop().catch((error: unknown) => setStopError(error instanceof Error ? error.message : String(error)));
  }, [stop]);

  const headerControls = useMemo(
    () => (
      <div className="header-controls" role="group" aria-label={t('settings.label')}>
        <LanguageSelect />
        <ThemeSelect value={theme} onChange={changeTheme} />
        <button type="button" className="icon-button" aria-label={t('nav.openSettings')} aria-keyshortcuts="Control+Comma" title={`${t('nav.openSettings')} (Ctrl+,)`} data-testid="open-settings" onClick={() => openSettings('general')}>
          <SettingsIcon />
        </button>
      </div>
    ),
    [t, theme, changeTheme, openSettings],
  );

  // Made once per change, so the composer (memoized) is not drawn again while an answer streams.
  const connected = session.connection === 'connected';
  /** Bumped when the first run set a model up: the picker reads the default again. */
  const [modelsChanged, setModelsChanged] = useState(0);
  const modelPicker = useMemo(
    () => (client && connected ? <ModelPicker key={modelsChanged} client={client} value={session.model} onChange={session.chooseModel} /> : undefined),
    [client, connected, session.model, session.chooseModel, modelsChanged],
  );

  // Read again on the way back from Settings, where the person may have said whether it takes images.
  const imageInput = useImageInput(connected ? client : null, session.model, `${modelsChanged}:${view}`);

  const firstRun = useMemo(
    () => (client ? <FirstRun client={client} onOpenSettings={() => openSettings('providers')} onReady={() => setModelsChanged((n) => n + 1)} /> : null),
    [client, openSettings],
  );

  const current = useMemo(
    () => session.conversations.find((c) => c.id === session.selectedId) ?? null,
    [session.conversations, session.selectedId],
  );
  const waiting = Object.keys(session.chat.forms).length > 0 || Object.keys(session.chat.consents).length > 0;
  // The open conversation waits as its forms and consents say, as soon as they come or go; the
  // list (read at a run's start and end) says it of the others.
  const listed = useMemo(
    () =>
      session.loading || current === null || current.waits_for_person === waiting
        ? session.conversations
        : session.conversations.map((c) => (c === current ? { ...c, waits_for_person: waiting } : c)),
    [session.conversations, session.loading, current, waiting],
  );
  const hasContent =
    session.history.length > 0 || session.localTurns.length > 0 || session.chat.messageOrder.length > 0 || Object.keys(session.chat.forms).length > 0 || Object.keys(session.chat.consents).length > 0;

  // The conversation pane's chunk is fetched once it may be needed (a conversation opened, a
  // message being written), so it is ready when the first message shows.
  const paneWanted = hasContent || draft !== '' || session.selectedId !== null;
  useEffect(() => {
    if (paneWanted) preloadConversationPane();
  }, [paneWanted]);

  const status = (
    <>
      {session.loading && (
        <p className="log-status" role="status">
          {t('chat.loading')}
        </p>
      )}
      {session.loadError && (
        <p className="notice notice-error" role="alert">
          {t('chat.loadFailed', { error: session.loadError })}
        </p>
      )}
      {session.reconnecting && (
        <p className="log-status" role="status" data-testid="reconnecting">
          {t('chat.reconnecting')}
        </p>
      )}
      {moveError && (
        <p className="notice notice-error" role="alert">
          {moveError}
        </p>
      )}
      {stopError && (
        <p className="notice notice-error" role="alert">
          {t('chat.stopFailed', { error: stopError })}
        </p>
      )}
    </>
  );

  if (view === 'settings') {
    return (
      <div className="app-shell" data-testid="app-shell">
        <LazyPart>
          <SettingsPage
            key={settingsAt.n}
            initialSection={settingsAt.section}
            client={client}
            theme={theme}
            onThemeChange={changeTheme}
            onClose={() => setView('chat')}
            conversation={current ? { id: current.id, title: current.title || t('sidebar.untitled') } : null}
          />
        </LazyPart>
      </div>
    );
  }

  return (
    <OpenSettingsContext.Provider value={openSettings}>
      <div className="app-shell" data-testid="app-shell">
        <a
          className="skip-link"
          href="#composer-input"
          onClick={(event) => {
            // Focus without touching the URL fragment.
            event.preventDefault();
            focusComposer();
          }}
        >
          {t('app.skipToComposer')}
        </a>
        <Sidebar
          onNewConversation={startNewConversation}
          client={client}
          onRefresh={session.refreshList}
          conversations={listed}
          selectedId={session.selectedId}
          onSelect={selectConversation}
          error={session.listError}
          onIntent={preloadConversationPane}
          onNewConversationInProject={startInProject}
        />
        <ChatView
          title={current?.title || (newIn && !session.selectedId ? t('projects.newChatIn', { name: newIn.name }) : t('chat.newConversationTitle'))}
          headerControls={headerControls}
          draft={draft}
          onDraftChange={setDraft}
          connection={session.connection}
          connectionError={session.connectionError}
          onSend={sendDraft}
          running={session.runningId !== null}
          waiting={waiting}
          onStop={stopRun}
          status={status}
          setup={firstRun}
          composerRef={composerRef}
          modelPicker={modelPicker}
          imageInput={imageInput}
        >
          {hasContent ? (
            <LazyPart quiet>
              <ConversationPane client={client} session={session} setup={firstRun} />
            </LazyPart>
          ) : undefined}
        </ChatView>
        {shortcutsOpen && <ShortcutsSheet onClose={() => setShortcutsOpen(false)} />}
        <p className="visually-hidden" aria-live="polite" data-testid="shortcut-note">
          {shortcutNote}
        </p>
        <FontWarmup />
        <WebToolsHost
          client={client}
          announcer={announcer}
          conversationId={session.selectedId}
          chat={session.chat}
          connection={session.connection}
          reconnecting={session.reconnecting}
        />
      </div>
    </OpenSettingsContext.Provider>
  );
}
