'use strict';
// The single executable's main script (src/scripts/sea.mjs bundles it with
// boot.cjs): the CLI from the blob's assets instead of dist/.
require('./boot.cjs').loadFromSea().exports.cli();
