// Building the page from data without ever parsing HTML: every string from a report (file and
// function names come from the profiled app) becomes a text node. No innerHTML anywhere.

import { pct } from './format.ts';

export type Child = Node | string | number | false | null | undefined;

export interface Props {
  class?: string;
  title?: string;
  /** Plain attributes (set with setAttribute: the value is never parsed as markup). */
  attrs?: Record<string, string>;
  /** data-* attributes. */
  data?: Record<string, string>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K];
export function h(tag: string, props?: Props | null, ...children: Child[]): HTMLElement;
export function h(tag: string, props?: Props | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (props) decorate(el, props);
  append(el, ...children);
  return el;
}

export function decorate(el: HTMLElement, props: Props): void {
  if (props.class) el.className = props.class;
  if (props.title !== undefined) el.title = props.title;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const [k, v] of Object.entries(props.data ?? {})) el.dataset[k] = v;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === false || c === null || c === undefined) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Text where `backticked` parts are code, as the hints write API names: `crypto.pbkdf2Sync`. */
export function codeText(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  text.split('`').forEach((part, i) => {
    if (part === '') return;
    frag.appendChild(i % 2 === 1 ? h('code', null, part) : document.createTextNode(part));
  });
  return frag;
}

/** A horizontal bar filled to `percent` (0–100); the width is set through the CSSOM, which CSP allows. */
export function meter(percent: number, cls = ''): HTMLElement {
  const fill = h('span', { class: 'meter-fill' });
  fill.style.width = `${Math.max(0, Math.min(100, percent))}%`;
  return h('span', { class: `meter ${cls}`.trim(), attrs: { 'aria-hidden': 'true' } }, fill);
}

/**
 * For a function row or a hot line: the share as a number and a bar, and "±2.1" when the report
 * has the half-width of its 95% interval (report ownPctPm / selfPctPm).
 */
export function share(p: number, cls = '', pm?: number): HTMLElement {
  const interval =
    pm === undefined
      ? null
      : h(
          'span',
          { class: 'num share-pm muted', title: `95% interval: ${pct(Math.max(0, p - pm))} to ${pct(p + pm)}` },
          `±${pm.toFixed(1)}`,
        );
  return h('span', { class: 'share' }, h('span', { class: 'num share-pct' }, pct(p)), interval, meter(p, cls));
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}
