import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { BudgetShares } from './explanation';

const PARTS = ['system', 'tools', 'blocks', 'evidences', 'history', 'reserved', 'free'] as const;
type Part = (typeof PARTS)[number];
const LABEL = {
  system: 'inspector.budgetSystem',
  tools: 'inspector.budgetTools',
  blocks: 'inspector.budgetBlocks',
  evidences: 'inspector.budgetEvidences',
  history: 'inspector.budgetHistory',
  reserved: 'inspector.budgetReserved',
  free: 'inspector.budgetFree',
} as const satisfies Record<Part, string>;

/**
 * The model's window as one stacked bar (system, tool declarations, blocks, evidences,
 * conversation, kept for the answer, free), with every figure also written out beside it: the bar itself is hidden from
 * screen readers, the legend says the same in text.
 */
export function BudgetBar({ shares }: { shares: BudgetShares }) {
  const { t, i18n } = useTranslation();
  const captionId = useId();
  const format = (n: number) => n.toLocaleString(i18n.language);
  const total = Math.max(shares.window, 1);
  return (
    <figure className="budget" aria-labelledby={captionId} data-testid="budget">
      <figcaption id={captionId}>{t('inspector.budgetCaption', { window: format(shares.window) })}</figcaption>
      <div className="budget-bar" aria-hidden="true">
        {PARTS.map((part) =>
          shares[part] > 0 ? <span key={part} className={`budget-part budget-${part}`} style={{ width: `${(shares[part] / total) * 100}%` }} title={t(LABEL[part])} /> : null,
        )}
      </div>
      <dl className="budget-legend">
        {PARTS.map((part) => (
          <div key={part} className="budget-legend-item" data-testid={`budget-${part}`}>
            <dt>
              <span className={`budget-swatch budget-${part}`} aria-hidden="true" />
              {t(LABEL[part])}
            </dt>
            <dd>{t('inspector.tokens', { formatted: format(shares[part]) })}</dd>
          </div>
        ))}
      </dl>
    </figure>
  );
}
