// `node --import ./test/helpers/record-imports.mjs ...`: appends the URL of every module the
// process resolves to the file named by LOCUS_IMPORT_LOG (tests of lazy loading).
import { register } from 'node:module';

register('./record-imports-hooks.mjs', import.meta.url);
