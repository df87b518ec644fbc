// End-to-end: the first run's key step where no keyring can be used (`tessera serve` here has
// no Secret Service, as on a desktop without one): the failure is said in plain words with the
// key file offered right there, Back clears it, and the key file takes the key.

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { SCREENS_DIR, suiteStack } from './harness.mjs';

describe('the first run without a keyring', () => {
  const suite = suiteStack({ unconfigured: true });
  let stack;
  before(() => ({ stack } = suite));

  async function secretStore() {
    const response = await fetch(new URL('/v1/secrets/store', stack.url), { headers: { Authorization: `Bearer ${stack.token}` } });
    return response.json();
  }

  test('the key file is offered in plain words, cleared on Back, and takes the key', async (t) => {
    const store = await secretStore();
    if (store.keyring?.reachable) {
      t.skip('a keyring answers here (run outside dbus-run-session)');
      return;
    }
    const { page, errors } = await suite.open('en-US');
    const panel = page.getByTestId('first-run');
    await panel.waitFor({ timeout: 15_000 });
    const tryKey = async () => {
      await panel.getByRole('button', { name: 'DeepSeek', exact: true }).click();
      const form = panel.getByRole('form', { name: 'API key of DeepSeek' });
      await form.getByLabel('API key').fill('sk-first-run-e2e');
      await form.getByRole('button', { name: 'Save and test' }).click();
      const offer = panel.getByTestId('first-run-keyring');
      await offer.waitFor({ timeout: 10_000 });
      return offer;
    };

    let offer = await tryKey();
    const said = (await offer.textContent()) ?? '';
    assert.match(said, /Your system keyring cannot be reached, so the key could not be saved there\./);
    assert.match(said, /less safe/);
    // Shown, not under the composer, and the keyboard on it.
    const useFile = offer.getByRole('button', { name: 'Use a key file and save the key' });
    await page.waitForFunction(() => {
      const button = [...document.querySelectorAll('[data-testid="first-run-keyring"] button')][0];
      if (!button) return false;
      const r = button.getBoundingClientRect();
      return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === button;
    }, null, { timeout: 5_000 });
    assert.ok(await useFile.evaluate((el) => el === document.activeElement), 'the key file button has the focus');
    // Nothing of the keyring library's own words, nor an error code.
    assert.doesNotMatch((await panel.textContent()) ?? '', /DBus|dbus|Secret Service|KEYRING_UNAVAILABLE|org\.freedesktop/);
    await page.screenshot({ path: path.join(SCREENS_DIR, 'first-run-no-keyring.png') });

    await panel.getByRole('button', { name: 'Back' }).click();
    await panel.getByRole('button', { name: 'OpenAI', exact: true }).waitFor();
    assert.equal(await panel.getByRole('alert').count(), 0, 'Back leaves no failure behind');

    offer = await tryKey();
    await page.keyboard.press('Enter');
    await offer.waitFor({ state: 'detached', timeout: 10_000 });
    // The key is in the key file now (the provider's check goes on: offline here, it fails).
    const after = await secretStore();
    assert.equal(after.store, 'file');
    assert.ok(existsSync(after.key_file), `${after.key_file} exists: ${readdirSync(stack.dataDir)}`);
    const providers = await (await fetch(new URL('/v1/providers', stack.url), { headers: { Authorization: `Bearer ${stack.token}` } })).json();
    assert.equal(providers.providers.find((p) => p.name === 'deepseek')?.has_key, true);
    // The browser logs each 503 the keyring gave; nothing failed in the page itself.
    assert.deepEqual(
      errors.filter((e) => !/status of 503/.test(e)),
      [],
    );
  });
});
