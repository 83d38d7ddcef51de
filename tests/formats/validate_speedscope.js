// validate_speedscope.js - check a speedscope JSON file against the schema
// shipped in the npm package speedscope, with ajv, plus what the schema
// cannot say: frame indexes in range, one weight per sample, endValue -
// startValue = sum of weights.
//
//   node tests/formats/validate_speedscope.js NPM_PREFIX FILE
//
// NPM_PREFIX is where `npm install --prefix NPM_PREFIX speedscope ajv`
// put node_modules (build/npm).  Prints one line per profile,
// "profile NAME<TAB>UNIT<TAB>SAMPLES<TAB>TOTAL_WEIGHT", then "valid".  On a
// problem prints "invalid: ..." and exits 1.
'use strict';
const fs = require('fs');
const path = require('path');

if (process.argv.length !== 4) {
    console.error('usage: validate_speedscope.js NPM_PREFIX FILE');
    process.exit(2);
}
const prefix = path.resolve(process.argv[2]);
const Ajv = require(path.join(prefix, 'node_modules', 'ajv'));
const schema = JSON.parse(fs.readFileSync(path.join(prefix, 'node_modules',
    'speedscope', 'dist', 'release', 'file-format-schema.json'), 'utf8'));

function fail(msg) {
    console.log('invalid: ' + msg);
    process.exit(1);
}

let doc;
try {
    doc = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
} catch (e) {
    fail('not JSON: ' + e.message);
}
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
if (!validate(doc))
    fail(ajv.errorsText(validate.errors));

const nframes = doc.shared.frames.length;
for (const p of doc.profiles) {
    if (p.type !== 'sampled')
        fail(`profile ${p.name}: type ${p.type}, expected sampled`);
    if (p.samples.length !== p.weights.length)
        fail(`profile ${p.name}: ${p.samples.length} samples but ` +
             `${p.weights.length} weights`);
    let total = 0;
    for (const s of p.samples)
        for (const i of s)
            if (!Number.isInteger(i) || i < 0 || i >= nframes)
                fail(`profile ${p.name}: frame index ${i} out of range`);
    for (const w of p.weights) {
        if (!(w >= 0))
            fail(`profile ${p.name}: negative weight ${w}`);
        total += w;
    }
    if (p.endValue - p.startValue !== total)
        fail(`profile ${p.name}: endValue - startValue = ` +
             `${p.endValue - p.startValue}, weights sum to ${total}`);
    console.log(`profile ${p.name}\t${p.unit}\t${p.samples.length}\t${total}`);
}
console.log('valid');
