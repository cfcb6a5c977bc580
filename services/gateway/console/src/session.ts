import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SessionState } from './api';

/** The signed-in session, for the pages: given once by the app. */
export const SessionContext = createContext<SessionState | null>(null);
export const useSession = () => useContext(SessionContext);
