// Heat on the hot lines: a background tint scaled by own time, a mark in the overview ruler and
// a short after-text (`■ 812 ms`). Whole-line tints and after-text never move code.
import * as vscode from 'vscode';
import type { DecorationsParams, LineHeat } from '../../protocol.ts';
import { readSettings } from '../settings.ts';

/**
 * Share of one core from which a line gets each heat level: what the line costs of the app's
 * capacity, not of its busy time (a mostly idle app's top line was as red as a real bottleneck).
 */
const LEVELS = [0.5, 3, 10, 30, 60];

export class HeatDecorations implements vscode.Disposable {
  private readonly types: vscode.TextEditorDecorationType[];
  /** Latest heat per document URI, re-applied when an editor shows that document again. */
  private readonly heat = new Map<string, LineHeat[]>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.types = LEVELS.map((_, i) => {
      const alpha = 0.08 + i * 0.07;
      return vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: `rgba(255, 90, 40, ${alpha.toFixed(2)})`,
        overviewRulerColor: `rgba(255, 90, 40, ${Math.min(1, alpha * 2.5).toFixed(2)})`,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      });
    });
    this.disposables.push(
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => this.apply(e))),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('hotline.decorations'))
          vscode.window.visibleTextEditors.forEach((ed) => this.apply(ed));
      }),
    );
  }

  update(p: DecorationsParams): void {
    if (p.lines.length === 0) this.heat.delete(p.uri);
    else this.heat.set(p.uri, p.lines);
    for (const editor of vscode.window.visibleTextEditors)
      if (editor.document.uri.toString() === p.uri) this.apply(editor);
  }

  clearAll(): void {
    this.heat.clear();
    vscode.window.visibleTextEditors.forEach((e) => this.apply(e));
  }

  private apply(editor: vscode.TextEditor): void {
    const settings = readSettings(editor.document.uri);
    const lines = settings.decorations ? (this.heat.get(editor.document.uri.toString()) ?? []) : [];
    const byLevel: vscode.DecorationOptions[][] = this.types.map(() => []);
    for (const l of lines) {
      let level = -1;
      for (let i = 0; i < LEVELS.length; i++) if (l.corePct >= LEVELS[i]) level = i;
      if (level < 0 || l.line >= editor.document.lineCount) continue;
      const end = editor.document.lineAt(l.line).range.end;
      byLevel[level].push({
        range: new vscode.Range(end, end),
        renderOptions: settings.decorationAfterText
          ? {
              after: {
                contentText: `  ${l.label}`,
                color: new vscode.ThemeColor('editorCodeLens.foreground'),
                fontStyle: 'italic',
              },
            }
          : undefined,
      });
    }
    this.types.forEach((t, i) => editor.setDecorations(t, byLevel[i]));
  }

  dispose(): void {
    this.types.forEach((t) => t.dispose());
    this.disposables.forEach((d) => d.dispose());
  }
}
