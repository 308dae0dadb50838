// The page's own CSS (the toolkit components style themselves). Colours come only from VS Code's
// theme variables, so the page follows dark, light and high-contrast themes.
export const REPORT_CSS = `
:root { color-scheme: light dark; }
/* The hot colour of figures, bars, the heat map and the "your code" swatch. Not the theme's
   charts.orange: Dark Modern makes it rgba(234,92,0,0.33), dim brown on dark. One opaque orange
   per theme kind, each readable as text on that kind's background (high contrast included). */
body { --hl-hot: #b35000; }
body.vscode-dark { --hl-hot: #f0883e; }
body.vscode-high-contrast { --hl-hot: #ffa657; }
body.vscode-high-contrast-light { --hl-hot: #8f3f00; }
body {
  margin: 0; padding: 0 20px 32px;
  color: var(--vscode-foreground);
  background: var(--vscode-editor-background);
  font-family: var(--vscode-font-family);
  font-size: var(--vscode-font-size);
  line-height: 1.45;
}
.loading { color: var(--vscode-descriptionForeground); padding: 16px 0; }
.mono, code { font-family: var(--vscode-editor-font-family); font-size: 0.95em; }
code {
  padding: 0 4px; border-radius: 3px;
  background: var(--vscode-textCodeBlock-background);
  color: var(--vscode-textPreformat-foreground);
}
.muted { color: var(--vscode-descriptionForeground); }
.num { font-variant-numeric: tabular-nums; text-align: right; }
.spacer { flex: 1; }
h1 { font-size: 1.35em; font-weight: 600; margin: 0; }
h2 { font-size: 1.05em; font-weight: 600; margin: 0 0 8px; display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
h2 .note { font-weight: normal; font-size: 0.92em; }

/* ---- head ---------------------------------------------------------------------------------- */
.head { padding: 16px 0 8px; }
.title-row { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; }
.title-row .vs { font-size: 0.92em; }
.subtitle { display: flex; flex-wrap: wrap; gap: 4px 0; margin-top: 6px; color: var(--vscode-descriptionForeground); }
.subtitle > span + span::before { content: "\\00b7"; padding: 0 8px; }
.subtitle .request { color: var(--vscode-foreground); }
.notes { margin-top: 8px; color: var(--vscode-descriptionForeground); }
.notes summary { cursor: pointer; }
.notes ul { margin: 4px 0 0; padding-left: 20px; }
.badge {
  display: inline-block; box-sizing: border-box; min-width: 18px; padding: 1px 6px; border-radius: 11px;
  font-size: 11px; line-height: 16px; text-align: center; font-weight: normal;
  background: var(--vscode-badge-background); color: var(--vscode-badge-foreground);
  border: 1px solid var(--vscode-contrastBorder, transparent);
}
vscode-panel-tab .badge { margin-inline-start: 8px; }
.badge.partial-badge { background: var(--vscode-errorForeground); color: var(--vscode-editor-background); font-weight: 600; }

.callout {
  margin: 10px 0 0; padding: 8px 12px; border-radius: 2px;
  border-left: 3px solid var(--vscode-textBlockQuote-border);
  background: var(--vscode-textBlockQuote-background);
}
.callout.warning {
  border-left-color: var(--vscode-editorWarning-foreground);
  background: var(--vscode-inputValidation-warningBackground, var(--vscode-textBlockQuote-background));
}
.callout.error {
  border-left-color: var(--vscode-errorForeground);
  background: var(--vscode-inputValidation-errorBackground, var(--vscode-textBlockQuote-background));
}
.callout.info { border-left-color: var(--vscode-focusBorder); }
.focus-status:empty { display: none; }

/* ---- tabs ---------------------------------------------------------------------------------- */
vscode-panels.tabs { margin-top: 8px; max-width: 100%; }
/* The toolkit's tab list is one grid row as wide as all its tabs (width: max-content): beside the
   code (~520 px) the last tabs and every card beyond it were cut off with no scrollbar. The tabs
   wrap instead, the selected one underlined by its own border (the sliding indicator is placed
   by grid column, which a wrapped row does not have). */
vscode-panels.tabs::part(tablist) {
  display: flex; flex-wrap: wrap; column-gap: 24px; row-gap: 2px; width: auto; max-width: 100%;
}
vscode-panels.tabs::part(activeIndicator) { display: none; }
vscode-panels.tabs vscode-panel-tab { border-bottom: 1px solid transparent; }
vscode-panels.tabs vscode-panel-tab[aria-selected="true"] { border-bottom-color: var(--vscode-panelTitle-activeBorder, var(--vscode-focusBorder)); }
vscode-panels.tabs::part(tabpanel) { min-width: 0; max-width: 100%; }
vscode-panel-view.view { padding: 14px 0 0; flex-direction: column; min-width: 0; max-width: 100%; box-sizing: border-box; }
vscode-panel-view.view > * { width: 100%; }
.intro { margin: 0 0 10px; }
.empty { color: var(--vscode-descriptionForeground); font-style: italic; }

/* ---- overview ------------------------------------------------------------------------------ */
.block { margin: 0 0 22px; }
.first-look {
  display: grid; grid-template-columns: repeat(auto-fit, minmax(min(300px, 100%), 1fr)); gap: 12px;
  margin: 0 0 14px;
}
.first-look > div {
  padding: 10px 14px; border-radius: 4px;
  background: var(--vscode-editorWidget-background);
  border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border));
}
.first-look .top-line { border-left: 3px solid var(--hl-hot); }
.first-look .top-hint { border-left: 3px solid var(--vscode-editorWarning-foreground); }
.label {
  font-size: 0.85em; text-transform: uppercase; letter-spacing: 0.04em;
  color: var(--vscode-descriptionForeground); margin-bottom: 4px;
}
.top-line-main { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; margin-bottom: 2px; }
.big-pct { font-size: 1.9em; font-weight: 600; line-height: 1.1; color: var(--hl-hot); }
.big-pct.cool { color: var(--vscode-foreground); }
.big-unit { font-size: 0.45em; font-weight: 400; color: var(--vscode-descriptionForeground); }
.top-line-what { font-size: 1.1em; }
.hint-message { margin: 2px 0 6px; }
.hint-fix { color: var(--vscode-foreground); }
.hint-fix strong { font-weight: 600; }

.stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(120px, 1fr)); gap: 8px; }
.stat {
  padding: 8px 10px; border-radius: 4px;
  background: var(--vscode-editorWidget-background);
  border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border));
}
.stat-label { font-size: 0.85em; color: var(--vscode-descriptionForeground); }
.stat-value { font-size: 1.55em; font-weight: 600; font-variant-numeric: tabular-nums; line-height: 1.25; white-space: nowrap; }
.stat-value .unit { font-size: 0.6em; font-weight: normal; margin-left: 3px; color: var(--vscode-descriptionForeground); }
.stat-sub { font-size: 0.85em; color: var(--vscode-descriptionForeground); }
.stat.warn { border-color: var(--vscode-editorWarning-foreground); }
.stat.warn .stat-value { color: var(--vscode-editorWarning-foreground); }
.facts { display: flex; flex-wrap: wrap; gap: 4px 18px; margin-top: 8px; color: var(--vscode-descriptionForeground); }
.block > p { margin: 8px 0 0; }

.delta { font-size: 0.95em; white-space: nowrap; }
.delta .was::before { content: " \\00b7  "; }
.stat .delta .was { display: block; }
.stat .delta .was::before { content: none; }
.delta .was { color: var(--vscode-descriptionForeground); }
.good { color: var(--vscode-charts-green); }
.bad { color: var(--vscode-charts-red); }
.delta.same { color: var(--vscode-descriptionForeground); }

.stack {
  display: flex; height: 18px; border-radius: 3px; overflow: hidden;
  background: var(--vscode-editorWidget-background);
  border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border));
}
.seg { height: 100%; min-width: 1px; }
.seg + .seg { box-shadow: -1px 0 0 var(--vscode-editor-background); }
/* The last column (how a part was found) wraps: at the report's opening width (~520 px) its
   text would push the figures beside it out of sight. */
.legend { display: grid; grid-template-columns: 14px minmax(0, max-content) 56px 72px minmax(0, 1fr); gap: 3px 10px; margin-top: 10px; align-items: center; }
.legend-row > * { min-width: 0; overflow-wrap: anywhere; }
.legend .delta { white-space: normal; }
.legend-row { display: contents; }
.legend-row.zero > * { opacity: 0.55; }
.legend-head > * { font-size: 0.85em; }
.legend-pct { font-weight: 600; }
/* "<0.1 ms" on one line: the figure column is narrow. */
.request-legend .num { white-space: nowrap; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; }
.cat-user { background: var(--hl-hot); }
.cat-dependencies { background: var(--vscode-charts-blue); }
.cat-nodeInternals { background: var(--vscode-charts-green); }
.cat-native { background: var(--vscode-charts-purple); }
.cat-gc { background: var(--vscode-charts-red); }
.cat-program, .cat-idle { background: var(--vscode-charts-lines); }
.rt-user { background: var(--hl-hot); }
.rt-dependencies { background: var(--vscode-charts-blue); }
.rt-runtime { background: var(--vscode-charts-green); }
.rt-threadpool { background: var(--vscode-charts-yellow); }
.rt-http { background: var(--vscode-charts-purple); }
.rt-datastore { background: var(--vscode-charts-red); }
/* Inferred, not measured: hatched. */
.rt-rest { background: repeating-linear-gradient(135deg, var(--vscode-charts-lines) 0 3px, transparent 3px 6px); }

/* ---- tables -------------------------------------------------------------------------------- */
vscode-data-grid.grid { box-sizing: border-box; border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border)); border-radius: 4px; }
/* Narrower than its columns (beside the code): it scrolls sideways instead of cutting them off. */
vscode-data-grid.grid { display: block; max-width: 100%; overflow-x: auto; }
vscode-data-grid.grid > vscode-data-grid-row { min-width: var(--grid-min, 640px); }
/* What says a grid scrolls: a line naming the columns out of sight, a fade at the cut edge and
   a scrollbar drawn in the theme's slider colour (the overlay one shows only while scrolling).
   The first column (the line, or the function) stays put while the rest scroll under it. */
.scroll-hint { font-size: 0.85em; text-align: right; margin: 0 0 2px; }
.scroll-hint:empty { display: none; }
.grid-clip { position: relative; }
.grid-frame.overflows:not(.at-end) .grid-clip::after {
  content: ""; position: absolute; top: 1px; right: 1px; bottom: 12px; width: 28px; pointer-events: none;
  background: linear-gradient(to right, transparent, var(--vscode-editor-background));
}
vscode-data-grid.grid::-webkit-scrollbar { height: 10px; }
vscode-data-grid.grid::-webkit-scrollbar-thumb {
  background: var(--vscode-scrollbarSlider-background, var(--vscode-descriptionForeground)); border-radius: 0;
}
vscode-data-grid.grid::-webkit-scrollbar-thumb:hover { background: var(--vscode-scrollbarSlider-hoverBackground, var(--vscode-scrollbarSlider-background)); }
vscode-data-grid.grid vscode-data-grid-cell[grid-column="1"] {
  position: sticky; left: 0; z-index: 1; background: var(--vscode-editor-background);
}
vscode-data-grid.grid vscode-data-grid-row.focused vscode-data-grid-cell[grid-column="1"] {
  background: var(--vscode-list-inactiveSelectionBackground, var(--vscode-editor-background));
}
.cell-sub { display: block; font-size: 0.88em; white-space: normal; overflow-wrap: anywhere; }
vscode-data-grid-row[row-type="sticky-header"] { border-bottom: 1px solid var(--vscode-widget-border, var(--vscode-panel-border)); }
vscode-data-grid-cell.num { text-align: right; font-variant-numeric: tabular-nums; }
vscode-data-grid-cell[cell-type="columnheader"] { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
vscode-divider { margin: 4px 0 18px; }
vscode-data-grid-row.openable { cursor: pointer; }
vscode-data-grid-row.focused {
  background: var(--vscode-list-inactiveSelectionBackground, var(--vscode-list-hoverBackground));
  outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px;
}
.share { display: flex; align-items: center; gap: 8px; }
.share-pct { min-width: 44px; }
.share-pm { min-width: 34px; margin-left: -4px; font-size: 0.85em; }
.meter {
  display: inline-block; flex: 1; max-width: 90px; height: 8px; border-radius: 2px; overflow: hidden;
  background: var(--vscode-editorWidget-background);
  border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border));
}
.meter-fill { display: block; height: 100%; background: var(--vscode-charts-blue); }
.meter.hot .meter-fill { background: var(--hl-hot); }
.loc { color: var(--vscode-textLink-foreground); }
.callees { display: flex; flex-direction: column; gap: 1px; }
.inferred {
  margin-left: 6px; padding: 0 4px; border-radius: 2px; font-size: 0.82em;
  border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border));
  color: var(--vscode-descriptionForeground);
}
.category { white-space: nowrap; }
.category .swatch { margin-right: 6px; }
.tag { font-size: 0.85em; font-weight: 600; text-transform: uppercase; letter-spacing: 0.03em; }

/* ---- threads, allocations, external load --------------------------------------------------- */
.thread-tag {
  display: inline-block; margin-left: 8px; padding: 0 4px; border-radius: 2px; font-size: 0.78em; line-height: 1.2;
  font-family: var(--vscode-font-family); vertical-align: middle;
  color: var(--vscode-charts-purple); border: 1px solid var(--vscode-charts-purple);
}
.thread-name { display: flex; align-items: baseline; flex-wrap: wrap; gap: 2px 8px; }
.thread-flags { display: inline-flex; gap: 6px; flex-wrap: wrap; }
.thread-flag {
  padding: 0 5px; border-radius: 2px; font-size: 0.8em; white-space: nowrap;
  color: var(--vscode-editorWarning-foreground); border: 1px solid var(--vscode-editorWarning-foreground);
}
.thread-flag.boot { color: var(--vscode-descriptionForeground); border-color: var(--vscode-descriptionForeground); }
.thread-group { margin-bottom: 14px; }
.meter.alloc .meter-fill { background: var(--vscode-charts-purple); }
.meter.stall .meter-fill { background: var(--vscode-charts-orange); }
.stall-marks { margin-top: 8px; display: flex; flex-wrap: wrap; gap: 4px 6px; align-items: baseline; }
.stall-mark {
  font: inherit; font-size: 0.9em; cursor: pointer; padding: 1px 6px; border-radius: 2px;
  color: var(--vscode-foreground); background: transparent;
  border: 1px solid var(--vscode-editorError-foreground, #f14c4c);
}
.stall-mark:hover, .stall-mark:focus-visible { background: var(--vscode-list-hoverBackground); }
.meter.queued .meter-fill { background: var(--vscode-charts-yellow); }
.allocations .stat-value { font-size: 1.35em; }
.external-load { margin-top: 10px; display: flex; flex-direction: column; gap: 2px; }
.external-load code.command { word-break: break-all; }
.subtitle .attached { color: var(--vscode-foreground); }
.stat.absent .stat-value { color: var(--vscode-descriptionForeground); font-weight: normal; }
/* A long path is cut with an ellipsis (the row's tooltip has it whole), never run into the function beside it. */
.loc-cell { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding-right: 12px; }
/* Function names break between words ("http.createServer callback"), not inside one. */
vscode-data-grid-cell .fn { overflow-wrap: normal; word-break: normal; }
.worker-top { margin-top: 6px; padding-top: 6px; border-top: 1px solid var(--vscode-widget-border, var(--vscode-panel-border)); }
.jump { margin: -4px 0 10px; }

/* ---- hints --------------------------------------------------------------------------------- */
.hints { display: flex; flex-direction: column; gap: 10px; }
.hint {
  padding: 10px 14px; border-radius: 4px;
  background: var(--vscode-editorWidget-background);
  border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border));
  border-left: 3px solid var(--vscode-editorWarning-foreground);
}
.hint-head { display: flex; align-items: center; gap: 10px; margin-bottom: 6px; flex-wrap: wrap; }
.hint-head > code { font-size: 1.05em; font-weight: 600; }
.hint.focused { outline: 1px solid var(--vscode-focusBorder); }

/* ---- timeline ------------------------------------------------------------------------------ */
.timeline-body { display: flex; flex-wrap: wrap; gap: 16px 24px; align-items: flex-start; }
.timeline-map { flex: 0 1 auto; max-width: 100%; }
.timeline-side { flex: 1 1 380px; min-width: 320px; }
.heatmap-scroll { overflow-x: auto; max-width: 100%; }
.heatmap-canvas { display: block; cursor: crosshair; border-radius: 2px; }
.heatmap-canvas:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
.heat-legend { display: flex; align-items: center; gap: 8px; margin: 6px 0 0 48px; font-size: 0.85em; }
.heat-scale {
  display: inline-block; width: 90px; height: 8px; border-radius: 2px;
  background: linear-gradient(to right, var(--vscode-editorWidget-background), var(--hl-hot));
  border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border));
}
.range-bar { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; margin-bottom: 10px; }
.range-status { flex: 1; min-width: 200px; }
.range-table {
  width: 100%; border-collapse: collapse; box-sizing: border-box;
  border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border)); border-radius: 4px;
}
.range-table th { text-align: left; font-weight: 600; padding: 6px 10px; white-space: nowrap; border-bottom: 1px solid var(--vscode-widget-border, var(--vscode-panel-border)); }
.range-table td { padding: 4px 10px; }
.range-table th.num, .range-table td.num { text-align: right; }
.range-table td:first-child { width: 130px; }
.range-table tr.openable { cursor: pointer; }
.range-table tbody tr:hover { background: var(--vscode-list-hoverBackground); }
.range-table tbody tr:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
`;
