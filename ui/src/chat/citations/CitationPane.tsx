import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { modalKeyDown } from '../../components/modalKeys';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../components/clipboard';
import { Overlay } from '../../components/Overlay';
import { useModalFocus } from '../../components/useModalFocus';
import type { ChipState } from './CitationScope';
import { systemOpener } from './openFile';
import type { Citation } from './parse';
import type { Passage } from './verify';
import { useWhere } from './where';


/** The passage's lines, numbered from its first (`lines[0]`), the cited ones marked. */
export function passageLines(passage: Passage, citation: Citation): { number: number | null; text: string; cited: boolean }[] {
  const first = passage.lines?.[0] ?? null;
  const cited = citation.lines;
  return passage.text.split('\n').map((text, i) => {
    const number = first === null ? null : first + i;
    return { number, text, cited: number !== null && cited !== null && number >= cited[0] && number <= cited[1] };
  });
}

/**
 * What a citation names, in a modal dialog: the file's path (with Copy, and Open where the
 * system can), the lines or page, and, when the run was given it, the passage with the cited
 * lines marked, its project and score. Escape closes it; the chip takes the focus back.
 */
export function CitationPane({ citation, state, passage, onClose }: { citation: Citation; state: ChipState; passage: Passage | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const where = useWhere();
  const titleId = useId();
  const ref = useRef<HTMLDivElement | null>(null);
  const textRef = useRef<HTMLDivElement | null>(null);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const open = systemOpener();
  const [openFailed, setOpenFailed] = useState<string | null>(null);
  const openInApp = (path: string) => {
    if (!open) return;
    setOpenFailed(null);
    open(path).catch((error: unknown) => setOpenFailed(String(error)));
  };
  useModalFocus(ref);

  useEffect(() => {
    textRef.current?.querySelector('.citation-line-cited')?.scrollIntoView?.({ block: 'nearest' });
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => modalKeyDown(event, ref.current, onClose);

  const copyPath = () =>
    void copyText(citation.path).then(
      () => setCopy('copied'),
      () => setCopy('failed'),
    );

  const lines = passage ? passageLines(passage, citation) : [];
  return (
    <Overlay>
      <div className="dialog-backdrop">
        <div ref={ref} className="dialog citation-pane" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown} data-testid="citation-pane" data-state={state}>
          <div className="citation-pane-header">
            <h2 id={titleId} className="dialog-title">
              {t('citations.title')}
            </h2>
            <button type="button" className="button button-secondary" onClick={onClose}>
              {t('citations.close')}
            </button>
          </div>
          <dl className="citation-facts">
            <dt>{t('citations.file')}</dt>
            <dd>
              <code className="citation-path" data-testid="citation-path">
                {citation.path}
              </code>
            </dd>
            <dt>{citation.page !== null ? t('citations.pageLabel') : t('citations.linesLabel')}</dt>
            <dd data-testid="citation-where">{citation.page !== null ? String(citation.page) : where(citation)}</dd>
            {passage?.project && (
              <>
                <dt>{t('citations.project')}</dt>
                <dd>{passage.project}</dd>
              </>
            )}
            {passage?.score !== null && passage?.score !== undefined && (
              <>
                <dt>{t('citations.score')}</dt>
                <dd>{passage.score.toLocaleString(i18n.language, { maximumSignificantDigits: 3 })}</dd>
              </>
            )}
          </dl>
          <div className="citation-actions">
            <button type="button" className="button button-secondary button-small" onClick={copyPath} data-testid="citation-copy-path">
              {copy === 'copied' ? t('citations.copied') : copy === 'failed' ? t('citations.copyFailed') : t('citations.copyPath')}
            </button>
            {open && (
              <button type="button" className="button button-secondary button-small" onClick={() => openInApp(citation.path)}>
                {t('citations.openInApp')}
              </button>
            )}
          </div>
          {openFailed !== null && (
            <p className="notice notice-error" role="alert" data-testid="citation-open-failed">
              {openFailed}
            </p>
          )}
          {state !== 'verified' && (
            <p className={state === 'unverified' ? 'notice notice-error' : 'notice'} role="note" data-testid="citation-notice">
              {state === 'unverified' ? t('citations.notGiven') : state === 'checking' ? t('citations.checking') : t('citations.unchecked')}
            </p>
          )}
          {passage && (
            <section aria-label={t('citations.passage')}>
              {passage.heading && <h3 className="citation-heading">{passage.heading}</h3>}
              {passage.text === '' ? (
                <p className="inspector-muted">{t('citations.noText')}</p>
              ) : (
                <div ref={textRef} className="citation-passage" data-testid="citation-passage">
                  {lines.map((line, i) => (
                    <div key={i} className={line.cited ? 'citation-line citation-line-cited' : 'citation-line'} data-line={line.number ?? undefined}>
                      <span className="citation-line-number" aria-hidden="true">
                        {line.number ?? ''}
                      </span>
                      {line.cited ? <mark className="citation-line-text">{line.text}</mark> : <span className="citation-line-text">{line.text}</span>}
                    </div>
                  ))}
                </div>
              )}
            </section>
          )}
        </div>
      </div>
    </Overlay>
  );
}
