// The console module's public entry: the plugin that serves the web console, for the composition.
export { createConsoleModule } from './console.module.js';
