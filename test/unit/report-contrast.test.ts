// The WCAG arithmetic the report's Timeline uses to pick a stall mark's colour
// (webview/report/contrast.ts), and the pick itself on the themes' own colours.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blend, contrastRatio, parseColor, readableOn, stallColors } from '../../webview/report/contrast.ts';

test('contrast ratios are WCAG 2: black on white 21, a colour on itself 1, #777 on white about 4.48', () => {
  assert.equal(contrastRatio([0, 0, 0], [255, 255, 255]), 21);
  assert.equal(contrastRatio([12, 200, 40], [12, 200, 40]), 1);
  assert.ok(Math.abs(contrastRatio(parseColor('#777')!, parseColor('#ffffff')!) - 4.48) < 0.01);
});

test('colours parse from #rgb, #rrggbb, #rrggbbaa and rgb(); anything else is undefined', () => {
  assert.deepEqual(parseColor('#f80'), [255, 136, 0]);
  assert.deepEqual(parseColor(' #FFA657 '), [255, 166, 87]);
  assert.deepEqual(parseColor('#6fc3df99'), [111, 195, 223]);
  assert.deepEqual(parseColor('rgba(1, 2, 3, 0.5)'), [1, 2, 3]);
  assert.equal(parseColor('red'), undefined);
  assert.equal(parseColor(''), undefined);
  assert.deepEqual(blend([255, 0, 0], [0, 0, 255], 0.5), [128, 0, 128]);
});

test('readableOn takes the first candidate at 3:1, else the one with the best worst case', () => {
  const orange = parseColor('#ffa657')!;
  assert.equal(readableOn(['#f48771', '#ffffff', '#000000'], [orange]), '#000000');
  assert.equal(readableOn(['#000000', '#ffffff'], [orange]), '#000000');
  // Black and white backdrops together: nothing reaches 3:1 on both; mid grey is the best compromise.
  assert.equal(
    readableOn(
      ['#ffffff', '#777777', '#000000'],
      [
        [0, 0, 0],
        [255, 255, 255],
      ],
    ),
    '#777777',
  );
  assert.equal(readableOn(['nonsense'], [orange]), undefined);
});

/** The themes' variables the mark is chosen from (report-helpers.ts has them whole). */
const THEMES: Record<string, { hot: string; vars: Record<string, string> }> = {
  'Dark Modern': {
    hot: '#f0883e',
    vars: {
      '--vscode-charts-red': '#f14c4c',
      '--vscode-foreground': '#cccccc',
      '--vscode-editor-background': '#1f1f1f',
    },
  },
  'Light Modern': {
    hot: '#b35000',
    vars: {
      '--vscode-charts-red': '#e51400',
      '--vscode-foreground': '#3b3b3b',
      '--vscode-editor-background': '#ffffff',
    },
  },
  'Dark High Contrast': {
    hot: '#ffa657',
    vars: {
      '--vscode-charts-red': '#f48771',
      '--vscode-foreground': '#ffffff',
      '--vscode-editor-background': '#000000',
      '--vscode-contrastBorder': '#6fc3df',
    },
  },
  'Light High Contrast': {
    hot: '#8f3f00',
    vars: {
      '--vscode-charts-red': '#b5200d',
      '--vscode-foreground': '#292929',
      '--vscode-editor-background': '#ffffff',
      '--vscode-contrastBorder': '#0f4a85',
    },
  },
};

for (const [name, t] of Object.entries(THEMES)) {
  test(`${name}: the stall bar is one of the theme's colours, at least 3:1 on the hot orange`, () => {
    const v = (k: string, fallback: string): string => t.vars[k] ?? fallback;
    const { stall, backing } = stallColors(v, t.hot);
    assert.ok(Object.values(t.vars).includes(stall), `${stall} is the theme's`);
    assert.ok(contrastRatio(parseColor(stall)!, parseColor(t.hot)!) >= 3, `${stall} on ${t.hot}`);
    assert.notEqual(backing, stall, 'the backing sets the bar apart from its neighbours');
  });
}
