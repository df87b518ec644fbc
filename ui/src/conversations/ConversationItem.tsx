import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MoreIcon, PinIcon } from '../components/icons';
import type { ConversationSummary } from '../generated/ConversationSummary';
import type { MessageMatch } from '../generated/MessageMatch';

export type ItemAction = 'rename' | 'pin' | 'archive' | 'move' | 'exportJson' | 'exportMarkdown' | 'delete';

export interface ConversationItemProps {
  /** A search's rows say where they matched (`match`). */
  row: ConversationSummary;
  selected: boolean;
  onSelect: () => void;
  onRename: (title: string) => void;
  onAction: (action: Exclude<ItemAction, 'rename'>) => void;
}

/** The search match with the words found marked. */
function Snippet({ match }: { match: MessageMatch }) {
  const chars = Array.from(match.snippet);
  const [start, end] = match.highlight ?? [0, 0];
  return (
    <span className="conversation-snippet" data-testid="conversation-snippet">
      {chars.slice(0, start).join('')}
      {end > start && <mark>{chars.slice(start, end).join('')}</mark>}
      {chars.slice(end).join('')}
    </span>
  );
}

/** Room kept between a menu and the window's edge. */
const EDGE = 8;

/**
 * Places an open menu (`position: fixed`, so the list's scrolling box does not clip it) under
 * its button, or above it where the window has no room below, right-aligned with the button.
 */
function placeMenu(menu: HTMLElement, button: HTMLElement) {
  const at = button.getBoundingClientRect();
  const height = menu.offsetHeight;
  const width = menu.offsetWidth;
  const below = at.bottom + 2;
  const top = below + height <= window.innerHeight - EDGE ? below : Math.max(EDGE, at.top - 2 - height);
  const left = Math.min(Math.max(EDGE, at.right - width), window.innerWidth - EDGE - width);
  menu.style.top = `${top}px`;
  menu.style.left = `${Math.max(EDGE, left)}px`;
}

/** The title field of an inline rename: Enter (or leaving it) saves, Escape cancels. */
function RenameField({ title, label, hint, onDone }: { title: string; label: string; hint: string; onDone: (title: string | null) => void }) {
  const [value, setValue] = useState(title);
  const done = useRef(false);
  const input = useRef<HTMLInputElement | null>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const finish = (save: boolean) => {
    if (done.current) return;
    done.current = true;
    const next = value.trim();
    onDone(save && next && next !== title ? next : null);
  };
  return (
    <input
      ref={input}
      className="conversation-rename"
      aria-label={label}
      title={hint}
      value={value}
      maxLength={200}
      data-testid="conversation-rename"
      onChange={(event) => setValue(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
          event.preventDefault();
          finish(true);
        } else if (event.key === 'Escape') {
          event.preventDefault();
          event.stopPropagation();
          finish(false);
        }
      }}
      onBlur={() => finish(true)}
    />
  );
}

/**
 * One conversation of the list: its title (a search shows where it matched), and a menu of
 * actions (rename, pin, archive, move to a project, export, delete). F2 on the title renames it inline.
 */
export function ConversationItem({ row, selected, onSelect, onRename, onAction }: ConversationItemProps) {
  const { t } = useTranslation();
  const [renaming, setRenaming] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const titleButton = useRef<HTMLButtonElement | null>(null);
  const menuButton = useRef<HTMLButtonElement | null>(null);
  const menu = useRef<HTMLDivElement | null>(null);
  const title = row.title || t('sidebar.untitled');

  // The menu closes on a click elsewhere.
  useEffect(() => {
    if (!menuOpen) return;
    const close = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node) && !menuButton.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    document.addEventListener('mousedown', close);
    menu.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    return () => document.removeEventListener('mousedown', close);
  }, [menuOpen]);

  // Placed before it is first drawn, and again when the list scrolls or the window changes.
  useLayoutEffect(() => {
    if (!menuOpen) return;
    const place = () => {
      if (menu.current && menuButton.current) placeMenu(menu.current, menuButton.current);
    };
    place();
    window.addEventListener('resize', place);
    window.addEventListener('scroll', place, true);
    return () => {
      window.removeEventListener('resize', place);
      window.removeEventListener('scroll', place, true);
    };
  }, [menuOpen]);

  const closeMenu = (focusButton: boolean) => {
    setMenuOpen(false);
    if (focusButton) menuButton.current?.focus();
  };

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = Array.from(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? []);
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const focus = (i: number) => items[(i + items.length) % items.length]?.focus();
    if (event.key === 'ArrowDown') focus(at + 1);
    else if (event.key === 'ArrowUp') focus(at - 1);
    else if (event.key === 'Home') focus(0);
    else if (event.key === 'End') focus(items.length - 1);
    else if (event.key === 'Escape') closeMenu(true);
    else if (event.key === 'Tab') setMenuOpen(false);
    else return;
    if (event.key !== 'Tab') event.preventDefault();
  };

  const choose = (action: ItemAction) => {
    closeMenu(action !== 'rename' && action !== 'delete' && action !== 'move');
    if (action === 'rename') setRenaming(true);
    else onAction(action);
  };

  const item = (action: ItemAction, label: string, danger = false) => (
    <button type="button" role="menuitem" className={danger ? 'menu-item menu-item-danger' : 'menu-item'} data-action={action} onClick={() => choose(action)}>
      {label}
    </button>
  );

  return (
    <li className="conversation-row" data-testid="conversation-row" data-conversation-id={row.id} data-pinned={row.pinned || undefined}>
      {renaming ? (
        <RenameField
          title={row.title}
          label={t('conversations.renameLabel', { title })}
          hint={t('conversations.renameHint')}
          onDone={(next) => {
            setRenaming(false);
            if (next) onRename(next);
            // Back where the person was.
            setTimeout(() => titleButton.current?.focus(), 0);
          }}
        />
      ) : (
        <button
          ref={titleButton}
          type="button"
          className="conversation-item"
          aria-current={selected ? 'page' : undefined}
          data-testid="conversation-item"
          data-conversation-id={row.id}
          onClick={onSelect}
          onKeyDown={(event) => {
            if (event.key === 'F2') {
              event.preventDefault();
              setRenaming(true);
            }
          }}
        >
          <span className="conversation-title">
            {row.pinned && <PinIcon className="conversation-pin" aria-label={t('conversations.pinned')} role="img" aria-hidden={undefined} />}
            <span className="conversation-title-text">{title}</span>
            {row.waits_for_person && ' '}
            {row.waits_for_person && (
              <span className="conversation-waiting" title={t('conversations.waitsForYou')} data-testid="conversation-waiting">
                <span className="conversation-waiting-dot" aria-hidden="true" />
                <span className="visually-hidden">{t('conversations.waitsForYou')}</span>
              </span>
            )}
          </span>
          {row.match && <Snippet match={row.match} />}
        </button>
      )}
      {!renaming && (
        <button
          ref={menuButton}
          type="button"
          className="conversation-menu-button"
          aria-label={t('conversations.actionsFor', { title })}
          aria-haspopup="menu"
          aria-expanded={menuOpen}
          data-testid="conversation-menu-button"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <MoreIcon />
        </button>
      )}
      {menuOpen && (
        <div ref={menu} className="menu conversation-menu" role="menu" aria-label={t('conversations.actionsFor', { title })} onKeyDown={onMenuKey} data-testid="conversation-menu">
          {item('rename', t('conversations.rename'))}
          {item('pin', row.pinned ? t('conversations.unpin') : t('conversations.pin'))}
          {item('archive', row.archived ? t('conversations.unarchive') : t('conversations.archive'))}
          {item('move', t('projects.moveTo'))}
          {item('exportJson', t('conversations.exportJson'))}
          {item('exportMarkdown', t('conversations.exportMarkdown'))}
          {item('delete', t('conversations.delete'), true)}
        </div>
      )}
    </li>
  );
}
