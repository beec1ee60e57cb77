/** The dashboard's entry: the one script index.html loads (dashboard/build.ts). */
import { createRoot } from 'react-dom/client';
import './styles.css';
import { App } from './app.tsx';

createRoot(document.getElementById('root')!).render(<App />);
