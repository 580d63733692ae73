// The app's DOM helpers: `h` builds an element tree, `patch` makes a live
// tree look like a freshly built one while keeping its elements. A screen is
// drawn by building what it should look like and patching the page to it,
// so that a button stays the same element from one render to the next (a
// finger on it is never left on a replaced node, which would lose the
// click), the focus stays where it was, and an input keeps what is typed.
//
// Children are matched by id first, then in order by tag; an element's
// handlers (`on…` attributes of `h`) live in one listener per event type
// that calls the newest handler, so patching only swaps the functions.

export const $ = (sel, root = document) => root.querySelector(sel);

function listen(e, type, fn) {
  if (!e.__on) e.__on = {};
  if (!(type in e.__on)) e.addEventListener(type, (ev) => e.__on[type]?.(ev));
  e.__on[type] = fn;
}

/** A tiny element builder: h('div.cls#id', {attrs}, ...children). */
export function h(spec, attrs, ...kids) {
  const [, tag, rest] = /^([a-z0-9]+)(.*)$/i.exec(spec);
  const e = document.createElement(tag);
  for (const m of rest.matchAll(/([.#])([\w-]+)/g)) {
    if (m[1] === '.') e.classList.add(m[2]);
    else e.id = m[2];
  }
  if (attrs !== undefined && attrs !== null && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    kids.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) listen(e, k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k instanceof Node ? k : String(k));
  return e;
}

const sameKind = (a, b) => a.nodeType === b.nodeType && a.nodeName === b.nodeName;

/** Makes `old` look like `neu` (same tag), keeping `old` and every child that can be kept. */
export function patch(old, neu) {
  if (old.nodeType === Node.TEXT_NODE) {
    if (old.data !== neu.data) old.data = neu.data;
    return;
  }
  if (old.nodeType !== Node.ELEMENT_NODE) return;
  for (const a of [...old.attributes]) if (!neu.hasAttributeNS(a.namespaceURI, a.localName)) old.removeAttributeNS(a.namespaceURI, a.localName);
  for (const a of neu.attributes) if (old.getAttributeNS(a.namespaceURI, a.localName) !== a.value) old.setAttributeNS(a.namespaceURI, a.name, a.value);
  // Handlers: the newest ones, through the listeners already there.
  const hs = neu.__on || {};
  for (const type of Object.keys(old.__on || {})) if (!(type in hs)) old.__on[type] = null;
  for (const [type, fn] of Object.entries(hs)) listen(old, type, fn);
  if (old.__own) return; // drawn by its own code (a board): only its attributes and handlers
  patchChildren(old, neu);
  // State a property holds rather than an attribute.
  if (old.tagName === 'INPUT' && (old.type === 'checkbox' || old.type === 'radio')) old.checked = neu.checked;
  if (old.tagName === 'INPUT' && old.readOnly && old.value !== neu.value) old.value = neu.value;
  if (old.tagName === 'SELECT' && old.value !== neu.value) old.value = neu.value;
}

/** Patches `parent`'s children to `neu`'s (an element) or to a list of nodes. */
export function patchChildren(parent, neu) {
  const want = Array.isArray(neu) ? neu.flat().filter((k) => k !== null && k !== undefined && k !== false).map((k) => (k instanceof Node ? k : document.createTextNode(String(k)))) : [...neu.childNodes];
  const have = [...parent.childNodes];
  const byId = new Map();
  for (const k of have) if (k.nodeType === Node.ELEMENT_NODE && k.id) byId.set(k.id, k);
  const used = new Set();
  const out = [];
  let i = 0;
  for (const k of want) {
    let match = null;
    if (k.nodeType === Node.ELEMENT_NODE && k.id) {
      const c = byId.get(k.id);
      if (c && sameKind(c, k) && !used.has(c)) match = c;
    } else {
      while (i < have.length && (used.has(have[i]) || (have[i].nodeType === Node.ELEMENT_NODE && have[i].id))) i += 1;
      if (i < have.length && sameKind(have[i], k)) {
        match = have[i];
        i += 1;
      }
    }
    if (match) {
      used.add(match);
      patch(match, k);
      out.push(match);
    } else {
      out.push(k);
    }
  }
  for (const k of have) if (!used.has(k)) k.remove();
  let ref = parent.firstChild;
  for (const k of out) {
    if (k === ref) ref = ref.nextSibling;
    else parent.insertBefore(k, ref);
  }
}
