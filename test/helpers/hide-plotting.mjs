// `node --import ./test/helpers/hide-plotting.mjs ...`: the process behaves as if vega,
// vega-lite, @resvg/resvg-js and fast-xml-parser were not installed (the optional peer
// dependencies).
import { register } from 'node:module';

register('./hide-plotting-hooks.mjs', import.meta.url);
