import { expect, it } from 'vitest';

it('exports exactly the helpers the packages bundle', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'MAX_TIMER_MS',
    'OPTION_ERROR_CODES',
    'assertKnownOptions',
    'assertOptionsObject',
    'booleanOption',
    'closestName',
    'compareAndSetOption',
    'describeValue',
    'editDistance',
    'functionOption',
    'helpLinkOption',
    'invalidOption',
    'isOptionError',
    'millisecondsOption',
    'missingOption',
    'oneOfOption',
    'optionError',
    'positiveIntegerOption',
    'requiredFunctionOption',
    'stringOption',
  ]);
});
