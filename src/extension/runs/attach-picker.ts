// "Hotline: Attach and Profile Under Load…": which running app to attach to. Offers the Node
// processes of this user whose working directory is inside the workspace folder (read from
// /proc), or an inspector URL, port or process id typed in. An inspector on another host is
// refused unless hotline.allowRemoteAttach is on, and even then asked about, every time.
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  type AttachSpec,
  descendantsOf,
  isWithin,
  type NodeProcess,
  nodeProcessesIn,
  parseAttachTarget,
  REMOTE_ATTACH_WARNING,
  remoteHostOf,
} from '../../core/index.ts';
import type { HotlineSettings } from '../settings.ts';

/** Node processes running in `folder`, but none of the editor's own (language server, load runner). */
function appsRunningIn(folder: string): NodeProcess[] {
  return nodeProcessesIn(folder, new Set([process.pid, ...descendantsOf(process.pid)]));
}

/** Whether the text is an attach target; the message says what to type otherwise. */
export function attachTargetProblem(text: string): string | undefined {
  try {
    parseAttachTarget(text);
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^--attach takes/, 'Type');
  }
}

export async function pickAttachTarget(
  folder: vscode.WorkspaceFolder,
  settings: HotlineSettings,
): Promise<AttachSpec | undefined> {
  const root = folder.uri.fsPath;
  const items: Array<vscode.QuickPickItem & { target?: string }> = appsRunningIn(root).map((p) => ({
    label: `$(server-process) ${p.pid}  ${p.argv.map((a) => (path.isAbsolute(a) && isWithin(root, a) ? path.relative(root, a) : path.basename(a))).join(' ')}`,
    description: path.relative(root, p.cwd) || '.',
    detail: 'Opens its inspector with SIGUSR1 if it has none (closed again afterwards)',
    target: `pid:${p.pid}`,
  }));
  items.push({ label: '$(edit) Enter an inspector URL, port or process id…' });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Hotline: attach to which running app?',
    placeHolder:
      items.length > 1
        ? 'Node processes running in this folder'
        : `No Node process runs in ${folder.name}: enter where its inspector is`,
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;
  const target =
    picked.target ??
    (await vscode.window.showInputBox({
      title: 'Hotline: the app to attach to',
      prompt: 'ws://127.0.0.1:9229/… (the inspector URL), 9229 (its port) or pid:1234 (a process id)',
      ignoreFocusOut: true,
      validateInput: attachTargetProblem,
    }));
  if (!target) return undefined;
  const remote = remoteHostOf(parseAttachTarget(target));
  if (remote !== undefined) {
    if (!settings.allowRemoteAttach) {
      void vscode.window.showErrorMessage(
        `Hotline: ${remote} is not this machine. Attaching to an inspector on another host is off: ${REMOTE_ATTACH_WARNING} To allow it, turn on hotline.allowRemoteAttach.`,
      );
      return undefined;
    }
    const go = await vscode.window.showWarningMessage(
      `Attach to the inspector on ${remote}? ${REMOTE_ATTACH_WARNING}`,
      { modal: true },
      'Attach',
    );
    if (go !== 'Attach') return undefined;
  }
  return { target, allowRemote: settings.allowRemoteAttach };
}
