/**
 * Imported first by each service's start script, before anything else is loaded: starts
 * tracing when the environment asks for it (see `startTracing`), and does nothing otherwise.
 */
import { startTracing } from './tracingSdk';

startTracing();
