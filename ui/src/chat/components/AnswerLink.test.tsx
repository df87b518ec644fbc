import { fireEvent, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createI18n } from '../../i18n';
import { AnswerLink, textIsAddress } from './AnswerLink';

const i18n = createI18n('en');

function draw(href: string, text: string) {
  return render(
    <I18nextProvider i18n={i18n}>
      <p>
        See <AnswerLink href={href}>{text}</AnswerLink> for more.
      </p>
    </I18nextProvider>,
  );
}

afterEach(() => vi.restoreAllMocks());

describe('a link in an answer', () => {
  it('whose text is not its address shows the full address before anything opens', () => {
    const opened = vi.spyOn(window, 'open').mockReturnValue(null);
    draw('https://evil.example/login?next=bank', 'your bank');
    fireEvent.click(screen.getByRole('link', { name: 'your bank' }));
    expect(opened).not.toHaveBeenCalled();
    expect(screen.getByTestId('link-address').textContent).toBe('https://evil.example/login?next=bank');
    expect(document.activeElement?.textContent).toBe('Open in browser');
    fireEvent.click(screen.getByRole('button', { name: 'Open in browser' }));
    expect(opened).toHaveBeenCalledWith('https://evil.example/login?next=bank', '_blank', 'noopener,noreferrer');
  });

  it('asks nothing when its text is its address, and Escape keeps the page as it was', () => {
    draw('https://example.com/docs/', 'example.com/docs');
    fireEvent.click(screen.getByRole('link'));
    expect(screen.queryByTestId('link-confirm')).toBeNull();

    draw('https://example.com/a', 'elsewhere');
    fireEvent.click(screen.getByRole('link', { name: 'elsewhere' }));
    fireEvent.keyDown(screen.getByTestId('link-confirm'), { key: 'Escape' });
    expect(screen.queryByTestId('link-confirm')).toBeNull();
    expect(document.activeElement?.textContent).toBe('elsewhere');
  });

  it('tells the text from the address as a person would', () => {
    expect(textIsAddress('https://a.example/x', 'https://a.example/x')).toBe(true);
    expect(textIsAddress('a.example/x', 'https://a.example/x/')).toBe(true);
    expect(textIsAddress('me@a.example', 'mailto:me@a.example')).toBe(true);
    expect(textIsAddress('a.example', 'https://b.example')).toBe(false);
    expect(textIsAddress('', 'https://b.example')).toBe(false);
  });
});
