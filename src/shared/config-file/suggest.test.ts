import { describe, expect, it } from 'vitest';
import { closestMatch, editDistance } from './suggest.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', 'abc', 0],
    ['abc', '', 3],
    ['timeout', 'tmeout', 1],
    ['timeout', 'tiemout', 1], // transposition
    ['kitten', 'sitting', 3],
  ])('%j → %j = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('closestMatch', () => {
  const keys = [
    'model',
    'temperature',
    'maxSteps',
    'maxRetries',
    'timeout',
    'envPath',
    'provider',
    'experts',
  ];
  it.each([
    ['modle', 'model'],
    ['temprature', 'temperature'],
    ['max_steps', 'maxSteps'],
    ['MAXRETRIES', 'maxRetries'],
    ['env-path', 'envPath'],
    ['expert', 'experts'],
  ])('%s → %s', (input, expected) => {
    expect(closestMatch(input, keys)).toBe(expected);
  });
  it.each(['colour', 'x', 'instructions_for_everyone'])('suggests nothing for unrelated %s', (input) => {
    expect(closestMatch(input, keys)).toBeUndefined();
  });
});
