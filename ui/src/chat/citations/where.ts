import { useTranslation } from 'react-i18next';
import { linesText, type Citation } from './parse';

/** "lines 12-18", "line 12", "page 3": where in its file a citation points, in words. */
export function useWhere(): (citation: Citation) => string {
  const { t } = useTranslation();
  return (citation) => {
    if (citation.page !== null) return t('citations.page', { page: citation.page });
    const lines = citation.lines ?? [1, 1];
    return lines[0] === lines[1] ? t('citations.line', { line: lines[0] }) : t('citations.lines', { lines: linesText(lines) });
  };
}
