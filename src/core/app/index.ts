// The app under test: start it (launch), or find and attach to one that runs (attach, proc-net),
// what to start (target), its process tree and ports.
export { type ChildInspector, ChildInspectors, nodeChildrenOf } from './child-processes.ts';
export { CommandApp, commandPath } from './command.ts';
export { AttachedApp, type AttachSpec, parseAttachTarget, REMOTE_ATTACH_WARNING, remoteHostOf } from './attach.ts';
export { AppProcess, describeExit, LaunchError, type LaunchSpec, type RunApp } from './launch.ts';
export { accepts, explicitPort, freePort, joinUrl, loopbackHostOf } from './ports.ts';
export { type NodeProcess, nodeProcessesIn } from './proc-net.ts';
export { descendantsOf, isAlive } from './processes.ts';
export { commandLineOf, fromNodeCommand, resolveTarget, TargetError } from './target.ts';
