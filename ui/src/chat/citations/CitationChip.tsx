import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CitationPane } from './CitationPane';
import { chipState, useCitationScope, type ChipState } from './CitationScope';
import { fileName, linesText, parseCitation } from './parse';
import { useWhere } from './where';
import './citations.css';

const STATUS = {
  verified: 'citations.verified',
  unverified: 'citations.unverified',
  checking: 'citations.checking',
  unchecked: 'citations.unchecked',
} as const satisfies Record<ChipState, string>;

/**
 * A citation of a passage in an answer, as a chip: the file's name and where in it, the full
 * path in its title. Verified (the run that wrote the answer was given that passage) or not,
 * said by its look and in words. A button: it opens the passage (CitationPane.tsx).
 */
export function CitationChip({ raw }: { raw: string }) {
  const { t } = useTranslation();
  const where = useWhere();
  const scope = useCitationScope();
  const want = scope?.want;
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLButtonElement | null>(null);
  const wasOpen = useRef(false);

  useEffect(() => {
    want?.();
  }, [want]);
  // The pane closed: the focus comes back here (WebKit does not focus a button clicked).
  useEffect(() => {
    if (open) wasOpen.current = true;
    else if (wasOpen.current) {
      wasOpen.current = false;
      ref.current?.focus();
    }
  }, [open]);

  const citation = parseCitation(raw);
  if (!citation) return <>{raw}</>;
  const { state, passage } = chipState(citation, scope);
  const name = fileName(citation.path);
  const span = citation.page !== null ? t('citations.pageShort', { page: citation.page }) : `:${linesText(citation.lines ?? [1, 1])}`;
  const status = t(STATUS[state]);
  return (
    <>
      <button
        ref={ref}
        type="button"
        className={`citation-chip citation-${state}`}
        data-testid="citation-chip"
        data-state={state}
        title={`${citation.path} · ${where(citation)}\n${status}`}
        aria-label={t('citations.chipLabel', { name, where: where(citation), status })}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        <span className="citation-chip-mark" aria-hidden="true">
          {state === 'verified' ? '✓' : state === 'unverified' ? '!' : '…'}
        </span>
        <span className="citation-chip-name">{name}</span>
        <span className="citation-chip-span">{citation.page !== null ? ` ${span}` : span}</span>
      </button>
      {open && <CitationPane citation={citation} state={state} passage={passage} onClose={() => setOpen(false)} />}
    </>
  );
}
