import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider } from 'react-i18next';
import { App } from './App';
import { createI18n } from './i18n';
import { applyTheme, readThemeChoice } from './theme';
import { TesseraClient, httpTransport } from './transport/client';
import { inDesktopShell, ipcTransport, reportReady } from './transport/ipc';
import { captureTokenFromUrl, getToken } from './transport/token';
import './styles.css';

// First thing: take the `tessera serve` token out of the address bar.
captureTokenFromUrl();
// Before the first paint, so a dark theme does not flash light.
applyTheme(readThemeChoice());

const i18n = createI18n();
// Inside the desktop shell, the engine it hosts (over IPC, no token); in a browser, the API of
// the `tessera serve` that served this page, when it handed over a token.
const client = inDesktopShell()
  ? new TesseraClient(ipcTransport())
  : getToken()
    ? new TesseraClient(httpTransport())
    : null;

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <I18nextProvider i18n={i18n}>
      <App client={client} />
    </I18nextProvider>
  </StrictMode>,
);

// The desktop shell wants to know when the window is usable: painted, and the engine answering.
if (client && inDesktopShell()) reportReady(client);
