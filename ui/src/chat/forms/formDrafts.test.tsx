import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import type { FormRequestPayload } from '../../generated/FormRequestPayload';
import { createI18n } from '../../i18n';
import type { Answer } from '../../transport/client';
import { FormCard } from './FormCard';

const TRIP: FormRequestPayload = {
  form_id: 'f-trip',
  title: 'Your trip',
  schema: {
    type: 'object',
    required: ['email'],
    properties: {
      email: { type: 'string', title: 'Email', format: 'email' },
      nights: { type: 'integer', title: 'Nights', minimum: 1 },
      breakfast: { type: 'boolean', title: 'Breakfast' },
      view: { type: 'string', title: 'View', oneOf: [{ const: 'sea', title: 'Sea view' }, { const: 'city', title: 'City view' }] },
      extras: { type: 'array', title: 'Extras', items: { anyOf: [{ const: 'parking', title: 'Parking' }, { const: 'gym', title: 'Gym' }] } },
    },
  },
};

/** The card as the app shows it; unmounted and shown again, it stands for a restart of the app. */
function show(onAnswer: (a: Answer) => Promise<void> = vi.fn().mockResolvedValue(undefined), request = TRIP) {
  const user = userEvent.setup();
  render(
    <I18nextProvider i18n={createI18n('en')}>
      <FormCard request={request} onAnswer={onAnswer} />
    </I18nextProvider>,
  );
  return { user, form: screen.getByRole('form', { name: request.title }) };
}

async function fillIn(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/^Email/), 'ana@example.com');
  await user.type(screen.getByLabelText('Nights'), '3');
  await user.click(screen.getByLabelText('Breakfast'));
  await user.selectOptions(screen.getByLabelText('View'), 'Sea view');
  await user.click(screen.getByLabelText('Gym'));
}

function expectFilledIn() {
  expect(screen.getByLabelText(/^Email/)).toHaveValue('ana@example.com');
  expect(screen.getByLabelText('Nights')).toHaveValue(3);
  expect(screen.getByLabelText('Breakfast')).toBeChecked();
  expect(screen.getByLabelText('View')).toHaveDisplayValue('Sea view');
  expect(screen.getByLabelText('Gym')).toBeChecked();
  expect(screen.getByLabelText('Parking')).not.toBeChecked();
}

describe('what is typed into a waiting form', () => {
  it('is there again when the card shows again (the app restarted)', async () => {
    const { user } = show();
    await fillIn(user);
    cleanup();
    show();
    expectFilledIn();
  });

  it('belongs to its own form alone', async () => {
    const { user } = show();
    await fillIn(user);
    cleanup();
    show(undefined, { ...TRIP, form_id: 'f-other' });
    expect(screen.getByLabelText(/^Email/)).toHaveValue('');
    expect(screen.getByLabelText('Breakfast')).not.toBeChecked();
  });

  it.each([
    ['sent', 'Submit'],
    ['declined', 'Decline'],
    ['cancelled', 'Cancel'],
  ])('is gone once the form is %s', async (_, button) => {
    const { user } = show();
    await fillIn(user);
    await user.click(screen.getByRole('button', { name: button }));
    cleanup();
    show();
    expect(screen.getByLabelText(/^Email/)).toHaveValue('');
    expect(screen.getByLabelText('Nights')).toHaveValue(null);
    expect(screen.getByLabelText('Gym')).not.toBeChecked();
  });

  it('stays when the answer was refused', async () => {
    const { user } = show(vi.fn().mockRejectedValue(new Error('offline')));
    await fillIn(user);
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await screen.findByTestId('form-failure');
    cleanup();
    show();
    expectFilledIn();
  });
});
