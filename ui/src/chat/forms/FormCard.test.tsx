import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import type { FormRequestPayload } from '../../generated/FormRequestPayload';
import { createI18n } from '../../i18n';
import { ApiError, type Answer } from '../../transport/client';
import { FormCard } from './FormCard';

const EVERY_KIND: FormRequestPayload = {
  form_id: 'f1',
  title: 'Your trip',
  description: 'Tell us about it',
  requester: { kind: 'specialist', name: 'Planner' },
  schema: {
    type: 'object',
    required: ['name', 'email', 'nights', 'room'],
    properties: {
      name: { type: 'string', title: 'Name', minLength: 2, maxLength: 20 },
      email: { type: 'string', title: 'Email', format: 'email' },
      site: { type: 'string', title: 'Website', format: 'uri' },
      day: { type: 'string', title: 'Arrival', format: 'date' },
      at: { type: 'string', title: 'Pick-up', format: 'date-time' },
      nights: { type: 'integer', title: 'Nights', minimum: 1, maximum: 14, default: 2 },
      budget: { type: 'number', title: 'Budget', minimum: 0 },
      breakfast: { type: 'boolean', title: 'Breakfast', default: true },
      room: { type: 'string', title: 'Room', enum: ['single', 'double'] },
      view: { type: 'string', title: 'View', oneOf: [{ const: 'sea', title: 'Sea view' }, { const: 'city', title: 'City view' }], default: 'city' },
      extras: { type: 'array', title: 'Extras', items: { anyOf: [{ const: 'parking', title: 'Parking' }, { const: 'late', title: 'Late check-out' }, { const: 'gym', title: 'Gym' }] }, maxItems: 2 },
      tags: { type: 'array', title: 'Tags', items: { enum: ['quiet', 'high floor'] } },
    },
  },
  ui: { submit_text: 'Book it' },
};

function renderForm(request: FormRequestPayload, onAnswer: (a: Answer) => Promise<void>, language: 'en' | 'zh-CN' = 'en') {
  const i18n = createI18n(language);
  const user = userEvent.setup();
  render(
    <I18nextProvider i18n={i18n}>
      <FormCard request={request} onAnswer={onAnswer} />
    </I18nextProvider>,
  );
  return { user, form: screen.getByRole('form', { name: request.title }) };
}

describe('form card', () => {
  it('comes into view title first, smoothly, and at once for a person who asked for less motion', () => {
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    renderForm(EVERY_KIND, vi.fn());
    expect(scrolled).toHaveBeenLastCalledWith({ block: 'start', behavior: 'smooth' });
    cleanup();
    window.matchMedia = ((query: string) => ({ matches: query.includes('prefers-reduced-motion: reduce') }) as MediaQueryList);
    try {
      renderForm(EVERY_KIND, vi.fn());
      expect(scrolled).toHaveBeenLastCalledWith({ block: 'start', behavior: 'auto' });
      expect(scrolled.mock.contexts.at(-1)).toHaveTextContent('Your trip');
    } finally {
      // jsdom has neither: the other tests run as they did.
      delete (window as { matchMedia?: unknown }).matchMedia;
      delete (Element.prototype as { scrollIntoView?: unknown }).scrollIntoView;
    }
  });

  it('renders every field kind of the schema subset, with who asked and the defaults', () => {
    const { form } = renderForm(EVERY_KIND, vi.fn());
    expect(within(form).getByText('Asked by Planner')).toBeInTheDocument();
    expect(within(form).getByText('Tell us about it')).toBeInTheDocument();
    expect(within(form).getByRole('textbox', { name: 'Name' })).toHaveAttribute('type', 'text');
    expect(within(form).getByRole('textbox', { name: 'Email' })).toHaveAttribute('type', 'email');
    expect(within(form).getByRole('textbox', { name: 'Website' })).toHaveAttribute('type', 'url');
    expect(within(form).getByLabelText('Arrival')).toHaveAttribute('type', 'date');
    expect(within(form).getByLabelText('Pick-up')).toHaveAttribute('type', 'datetime-local');
    expect(within(form).getByRole('spinbutton', { name: 'Nights' })).toHaveValue(2);
    expect(within(form).getByRole('spinbutton', { name: 'Nights' })).toHaveAccessibleDescription('1 to 14');
    expect(within(form).getByRole('spinbutton', { name: 'Budget' })).toBeInTheDocument();
    expect(within(form).getByRole('checkbox', { name: 'Breakfast' })).toBeChecked();
    expect(within(form).getByRole('combobox', { name: 'Room' })).toHaveDisplayValue('Choose…');
    expect(within(form).getByRole('combobox', { name: 'View' })).toHaveDisplayValue('City view');
    const extras = within(form).getByRole('group', { name: 'Extras' });
    expect(within(extras).getAllByRole('checkbox').map((c) => c.getAttribute('checked'))).toHaveLength(3);
    expect(within(extras).getByRole('checkbox', { name: 'Late check-out' })).not.toBeChecked();
    expect(within(form).getByRole('button', { name: 'Book it' })).toBeInTheDocument();
    expect(within(form).getByRole('button', { name: 'Decline' })).toBeInTheDocument();
    expect(within(form).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });

  it('checks the values first: inline errors on each field, the first focused, nothing sent', async () => {
    const onAnswer = vi.fn(async () => {});
    const { user, form } = renderForm(EVERY_KIND, onAnswer);
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'A');
    await user.type(within(form).getByRole('textbox', { name: 'Email' }), 'not-an-email');
    const nights = within(form).getByRole('spinbutton', { name: 'Nights' });
    await user.clear(nights);
    await user.type(nights, '30');
    for (const label of ['Parking', 'Late check-out', 'Gym']) await user.click(within(form).getByRole('checkbox', { name: label }));
    await user.click(within(form).getByRole('button', { name: 'Book it' }));

    expect(onAnswer).not.toHaveBeenCalled();
    const name = within(form).getByRole('textbox', { name: 'Name' });
    expect(name).toHaveFocus();
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveAccessibleDescription(/At least 2 characters/);
    expect(within(form).getByRole('textbox', { name: 'Email' })).toHaveAccessibleDescription(/Enter an email address/);
    expect(nights).toHaveAccessibleDescription(/At most 14/);
    expect(within(form).getByRole('combobox', { name: 'Room' })).toHaveAccessibleDescription(/Required/);
    expect(within(form).getByRole('group', { name: 'Extras' })).toHaveAccessibleDescription(/Choose at most 2/);
  });

  it('is keyboard-driven: typing then Enter submits the values, typed as the schema says', async () => {
    const onAnswer = vi.fn(async () => {});
    const { user, form } = renderForm(EVERY_KIND, onAnswer);
    await user.click(within(form).getByRole('textbox', { name: 'Name' }));
    await user.keyboard('Ada');
    await user.tab();
    await user.keyboard('ada@example.com');
    await user.selectOptions(within(form).getByRole('combobox', { name: 'Room' }), 'double');
    await user.click(within(form).getByRole('checkbox', { name: 'Gym' }));
    await user.click(within(form).getByRole('textbox', { name: 'Email' }));
    await user.keyboard('{Enter}');
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({
      action: 'accept',
      values: { name: 'Ada', email: 'ada@example.com', nights: 2, breakfast: true, room: 'double', view: 'city', extras: ['gym'] },
    });
  });

  it('shows the engine’s 422 per field and lets the person fix and resend', async () => {
    const refused = new ApiError(422, 'INVALID_VALUES', 'some values are not accepted', {
      fields: [{ field: 'email', message: 'must be a valid email address' }],
    });
    const onAnswer = vi.fn<(a: Answer) => Promise<void>>().mockRejectedValueOnce(refused).mockResolvedValueOnce(undefined);
    const request: FormRequestPayload = {
      form_id: 'f2',
      title: 'Your trip',
      schema: { type: 'object', required: ['email'], properties: { email: { type: 'string', title: 'Email' } } },
    };
    const { user, form } = renderForm(request, onAnswer);
    const email = within(form).getByRole('textbox', { name: 'Email' });
    await user.type(email, 'x@y{Enter}');
    expect(await within(form).findByText('must be a valid email address')).toBeInTheDocument();
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(email).toHaveFocus();
    expect(within(form).getByRole('alert')).toHaveTextContent('Some values are not accepted');
    expect(within(form).getByText('Asked by the agent')).toBeInTheDocument();
    await user.type(email, '.com{Enter}');
    expect(onAnswer).toHaveBeenLastCalledWith({ action: 'accept', values: { email: 'x@y.com' } });
  });

  it('declines and cancels without values', async () => {
    const onAnswer = vi.fn(async () => {});
    const { user, form } = renderForm(EVERY_KIND, onAnswer);
    await user.click(within(form).getByRole('button', { name: 'Decline' }));
    await user.click(within(form).getByRole('button', { name: 'Cancel' }));
    expect(onAnswer.mock.calls).toEqual([[{ action: 'decline' }], [{ action: 'cancel' }]]);
  });

  it('says which MCP server asked, in either language', () => {
    const request: FormRequestPayload = { ...EVERY_KIND, title: 'everything asks', requester: { kind: 'mcp_server', name: 'everything' } };
    const { form } = renderForm(request, vi.fn());
    expect(within(form).getByTestId('form-requester')).toHaveTextContent('Asked by the MCP server everything');
    cleanup();
    const zh = renderForm(request, vi.fn(), 'zh-CN');
    expect(within(zh.form).getByTestId('form-requester')).toHaveTextContent('由 MCP 服务器 everything 请求');
  });

  it('a page an MCP server asks to open is shown as text, never as a link, behind the server’s own button', async () => {
    const url = 'https://login.example.com/authorize?client=tessera';
    const onAnswer = vi.fn(async () => {});
    const request: FormRequestPayload = {
      form_id: 'f_url',
      title: 'everything asks you to open a page',
      description: `Sign in to continue.\n\n${url}`,
      // As tessera-mcp asks it: one box to tick, ticked.
      schema: { type: 'object', properties: { open: { type: 'boolean', title: 'Open this page in the browser', default: true } } },
      ui: { submit_text: 'Open in the browser' },
      requester: { kind: 'mcp_server', name: 'everything' },
      url,
    };
    const { user, form } = renderForm(request, onAnswer);
    expect(within(form).getByTestId('form-url')).toHaveTextContent(`Opens this page in your browser:${url}`);
    expect(within(form).queryByRole('link')).not.toBeInTheDocument();
    // The address is said once, where it is marked as the page to open.
    expect(form.textContent?.split(url)).toHaveLength(2);
    expect(within(form).getByText('Sign in to continue.')).toBeInTheDocument();
    expect(within(form).getByRole('checkbox', { name: 'Open this page in the browser' })).toBeChecked();
    await user.click(within(form).getByRole('button', { name: 'Open in the browser' }));
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ action: 'accept', values: { open: true } });
  });
});
