import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { pickBridge } from './bridge';
import { connectStore, createAppStore } from './store';
import { StoreContext } from './store/react';
import './styles.css';

const api = pickBridge();
const store = createAppStore(api);
connectStore(store, api);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <StoreContext.Provider value={store}>
        <App />
      </StoreContext.Provider>
    </StrictMode>,
  );
}
