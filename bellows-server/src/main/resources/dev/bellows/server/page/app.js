// The Bellows chat page: AG-UI over fetch and Server-Sent Events, no library, no build step.
// Model output is untrusted: it is only ever put into the page as text (textContent, text
// nodes); the Markdown renderer below builds elements itself and never assigns HTML.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const HIDDEN_TOOLS = new Set(["task_completion", "converse", "ask_question", "update_plan"]);
  // The loop-ending tools carry the answer in an argument: it is shown as the answer while it streams.
  const ANSWER_ARGUMENT = { task_completion: "result", converse: "message", ask_question: "question" };
  const MAX_SHOWN = 20000;

  // ---- storage ----
  const store = {
    get(key, fallback) {
      try {
        const value = localStorage.getItem(key);
        return value == null ? fallback : JSON.parse(value);
      } catch (e) {
        return fallback;
      }
    },
    set(key, value) {
      try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* full or denied: kept for this page only */ }
    },
    remove(key) {
      try { localStorage.removeItem(key); } catch (e) { /* nothing to do */ }
    },
  };
  const uuid = () => (crypto.randomUUID ? crypto.randomUUID()
    : "10000000-1000-4000-8000-100000000000".replace(/[018]/g, (c) =>
      (c ^ (crypto.getRandomValues(new Uint8Array(1))[0] & (15 >> (c / 4)))).toString(16)));

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  // ---- theme ----
  let theme = store.get("bellows.theme",
    window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  const applyTheme = () => { document.documentElement.dataset.theme = theme; };
  applyTheme();
  $("theme").addEventListener("click", () => {
    theme = theme === "dark" ? "light" : "dark";
    applyTheme();
    store.set("bellows.theme", theme);
  });

  // ---- Markdown, as DOM nodes ----
  const LIST = /^(\s*)([-*+]|\d{1,9}[.)])\s+/;
  const FENCE = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/;
  const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
  const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

  function blockStart(line) {
    return FENCE.test(line) || /^#{1,6}\s/.test(line) || /^\s*>/.test(line) || LIST.test(line) || RULE.test(line);
  }

  function markdown(source) {
    const fragment = document.createDocumentFragment();
    const lines = source.replace(/\r\n?/g, "\n").split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m = line.match(FENCE);
      if (m) {
        const fence = m[1];
        const body = [];
        i++;
        while (i < lines.length && !lines[i].trim().startsWith(fence)) body.push(lines[i++]);
        i++;
        const pre = el("pre");
        const code = el("code", null, body.join("\n"));
        if (m[2]) code.dataset.lang = m[2];
        pre.append(code);
        fragment.append(pre);
        continue;
      }
      if (!line.trim()) { i++; continue; }
      m = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
      if (m) {
        const heading = el("h" + m[1].length);
        inline(m[2], heading);
        fragment.append(heading);
        i++;
        continue;
      }
      if (RULE.test(line) && !LIST.test(line.replace(/^\s*\*\s\*/, ""))) {
        fragment.append(el("hr"));
        i++;
        continue;
      }
      if (/^\s*>/.test(line)) {
        const quoted = [];
        while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*>\s?/, ""));
        const quote = el("blockquote");
        quote.append(markdown(quoted.join("\n")));
        fragment.append(quote);
        continue;
      }
      if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes("-")) {
        i = table(lines, i, fragment);
        continue;
      }
      if (LIST.test(line)) {
        i = list(lines, i, fragment);
        continue;
      }
      const paragraph = [];
      while (i < lines.length && lines[i].trim() && (paragraph.length === 0 || !blockStart(lines[i]))) {
        paragraph.push(lines[i++]);
      }
      const p = el("p");
      inline(paragraph.join("\n"), p);
      fragment.append(p);
    }
    return fragment;
  }

  function cells(row) {
    let text = row.trim();
    if (text.startsWith("|")) text = text.slice(1);
    if (text.endsWith("|")) text = text.slice(0, -1);
    return text.split("|").map((cell) => cell.trim());
  }

  function table(lines, i, fragment) {
    const tableNode = el("table");
    const head = el("thead");
    const headRow = el("tr");
    for (const cell of cells(lines[i])) {
      const th = el("th");
      inline(cell, th);
      headRow.append(th);
    }
    head.append(headRow);
    tableNode.append(head);
    const body = el("tbody");
    i += 2;
    while (i < lines.length && lines[i].includes("|") && lines[i].trim()) {
      const row = el("tr");
      for (const cell of cells(lines[i])) {
        const td = el("td");
        inline(cell, td);
        row.append(td);
      }
      body.append(row);
      i++;
    }
    tableNode.append(body);
    fragment.append(tableNode);
    return i;
  }

  function list(lines, i, fragment) {
    const first = lines[i].match(LIST);
    const indent = first[1].length;
    const ordered = /\d/.test(first[2]);
    const listNode = el(ordered ? "ol" : "ul");
    if (ordered && parseInt(first[2], 10) !== 1) listNode.start = parseInt(first[2], 10);
    while (i < lines.length) {
      const m = lines[i].match(LIST);
      if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
      const item = [lines[i].slice(m[0].length)];
      i++;
      while (i < lines.length) {
        const line = lines[i];
        if (!line.trim()) {
          const next = lines[i + 1];
          if (next !== undefined && next.trim() && next.match(/^\s*/)[0].length > indent) {
            item.push("");
            i++;
            continue;
          }
          break;
        }
        const nested = line.match(LIST);
        if (nested && nested[1].length <= indent) break;
        if (!nested && !/^\s/.test(line) && blockStart(line)) break;
        item.push(line.replace(new RegExp("^\\s{0," + (indent + 4) + "}"), ""));
        i++;
      }
      const li = el("li");
      const text = item.join("\n");
      if (item.length > 1 && item.slice(1).some((l) => blockStart(l) || !l.trim())) {
        li.append(markdown(text));
      } else {
        inline(text, li);
      }
      listNode.append(li);
    }
    fragment.append(listNode);
    return i;
  }

  const INLINE = new RegExp([
    "(`+)([\\s\\S]*?[^`])\\1(?!`)",                        // 1, 2: code
    "\\*\\*(?=\\S)([\\s\\S]*?\\S)\\*\\*",                    // 3: strong
    "__(?=\\S)([\\s\\S]*?\\S)__(?!\\w)",                     // 4: strong
    "\\*(?=[^\\s*])([\\s\\S]*?[^\\s*])\\*",                  // 5: emphasis
    "(?<![\\w])_(?=[^\\s_])([\\s\\S]*?[^\\s_])_(?!\\w)",     // 6: emphasis
    "~~(?=\\S)([\\s\\S]*?\\S)~~",                            // 7: strikethrough
    "\\[([^\\]\\n]+)\\]\\(\\s*<?((?:[^()\\s<>]|\\([^()\\s]*\\))+)>?(?:\\s+\"[^\"]*\")?\\s*\\)", // 8, 9: link
    "(https?:\\/\\/[^\\s<>()\\[\\]]+[^\\s<>()\\[\\].,;:!?'\"])", // 10: bare URL
  ].join("|"), "g");

  function inline(text, parent) {
    INLINE.lastIndex = 0;
    const re = new RegExp(INLINE.source, "g");
    let last = 0;
    let m;
    while ((m = re.exec(text))) {
      if (m.index > last) plain(text.slice(last, m.index), parent);
      if (m[1]) {
        parent.append(el("code", null, m[2].replace(/^ (.*) $/, "$1")));
      } else if (m[3] != null || m[4] != null) {
        const strong = el("strong");
        inline(m[3] != null ? m[3] : m[4], strong);
        parent.append(strong);
      } else if (m[5] != null || m[6] != null) {
        const em = el("em");
        inline(m[5] != null ? m[5] : m[6], em);
        parent.append(em);
      } else if (m[7] != null) {
        const del = el("del");
        inline(m[7], del);
        parent.append(del);
      } else if (m[8] != null) {
        link(m[8], m[9], parent);
      } else if (m[10] != null) {
        link(m[10], m[10], parent, true);
      }
      last = re.lastIndex;
    }
    if (last < text.length) plain(text.slice(last), parent);
  }

  function plain(text, parent) {
    const parts = text.replace(/\\([\\`*_{}[\]()#+\-.!~|>])/g, "$1").split("\n");
    parts.forEach((part, index) => {
      if (index > 0) parent.append(el("br"));
      if (part) parent.append(document.createTextNode(part));
    });
  }

  function link(label, href, parent, bare) {
    let url = null;
    try { url = new URL(href, location.href); } catch (e) { url = null; }
    if (!url || !["http:", "https:", "mailto:"].includes(url.protocol)) {
      plain(label, parent);
      return;
    }
    const a = el("a");
    a.href = url.href;
    a.target = "_blank";
    a.rel = "noopener noreferrer nofollow";
    if (bare) a.textContent = label;    // a bare address is its own label: read as Markdown it would be a link again
    else inline(label, a);
    parent.append(a);
  }

  // ---- threads ----
  let threads = store.get("bellows.threads", []);
  let current = null;        // {id, title, items, state, interrupts}
  let running = null;        // {controller}
  let token = store.get("bellows.token", null);

  function saveThread() {
    if (!current || current.items.length === 0) return;
    store.set("bellows.thread." + current.id, {
      items: current.items.map(strip), state: current.state, interrupts: current.interrupts,
    });
    const entry = threads.find((t) => t.id === current.id);
    if (entry) {
      entry.updated = Date.now();
      entry.title = current.title;
    } else {
      threads.unshift({ id: current.id, title: current.title, updated: Date.now() });
    }
    threads.sort((a, b) => b.updated - a.updated);
    store.set("bellows.threads", threads);
    renderThreads();
  }

  function strip(item) {
    if (item.kind !== "assistant") return { ...item };
    return { kind: "assistant", parts: item.parts.map(stripPart) };
  }

  /** A part as it is kept: no DOM nodes, the sub-agents in a call's card kept with their own parts. */
  function stripPart({ node, ...rest }) {
    if (rest.agents) rest.agents = rest.agents.map(stripPart);
    if (rest.parts) rest.parts = rest.parts.map(stripPart);
    return rest;
  }

  function openThread(id) {
    if (running) return;
    const saved = id ? store.get("bellows.thread." + id, null) : null;
    const entry = threads.find((t) => t.id === id);
    current = {
      id: saved ? id : uuid(),
      title: entry ? entry.title : "New conversation",
      items: saved ? saved.items : [],
      state: saved ? saved.state || {} : {},
      interrupts: saved ? saved.interrupts || [] : [],
    };
    $("turns").replaceChildren();
    for (const item of current.items) renderItem(item);
    if (current.interrupts.length) showInterrupts(current.items[current.items.length - 1], current.interrupts);
    $("title").textContent = current.title;
    $("status").textContent = idleStatus();
    $("empty").hidden = current.items.length > 0;
    store.set("bellows.current", current.id);
    renderThreads();
    $("app").classList.remove("sidebar-open");
    scrollDown(true);
    $("input").focus();
  }

  function renderThreads() {
    const nav = $("threads");
    nav.replaceChildren();
    for (const thread of threads) {
      const row = el("div", "thread" + (current && thread.id === current.id ? " active" : ""));
      const open = el("button", "open", thread.title);
      open.type = "button";
      open.title = thread.title;
      open.addEventListener("click", () => openThread(thread.id));
      const remove = el("button", "delete", "\u2715");
      remove.type = "button";
      remove.title = "Forget this conversation in this browser";
      remove.setAttribute("aria-label", "Forget " + thread.title);
      remove.addEventListener("click", () => {
        threads = threads.filter((t) => t.id !== thread.id);
        store.set("bellows.threads", threads);
        store.remove("bellows.thread." + thread.id);
        if (current && current.id === thread.id) openThread(null);
        else renderThreads();
      });
      row.append(open, remove);
      nav.append(row);
    }
  }

  // ---- rendering ----
  function scrollDown(force) {
    const box = $("conversation");
    if (force || box.scrollHeight - box.scrollTop - box.clientHeight < 160) {
      box.scrollTop = box.scrollHeight;
    }
  }

  function renderItem(item) {
    if (item.kind === "user") {
      $("turns").append(el("div", "user", item.text));
      return;
    }
    const turn = el("div", "assistant");
    item.node = turn;
    $("turns").append(turn);
    for (const part of item.parts) {
      part.node = partNode(part);
      turn.append(part.node);
      updatePart(part);
    }
  }

  function partNode(part) {
    switch (part.kind) {
      case "thinking": {
        const details = el("details", "thinking");
        details.append(el("summary"), el("div", "body"));
        return details;
      }
      case "text": return el("div", "answer");
      case "tool": {
        const card = el("div", "tool");
        const head = el("div", "tool-head");
        head.append(el("span", "tool-icon", "\u2692"), el("span", "tool-name"), el("span", "tool-state"));
        card.append(head);
        return card;
      }
      case "agent": {
        // a sub-agent: a nested card in the card of the call that runs it; its own work streams in it
        const card = el("div", "agent");
        const head = el("div", "agent-head");
        head.append(el("span", "agent-icon", "\u2937"), el("span", "agent-name"), el("span", "agent-task"),
            el("span", "agent-state"));
        card.append(head, el("div", "agent-body"));
        return card;
      }
      case "plan": {
        const card = el("div", "plan");
        const title = el("h3");
        title.append(el("span", null, "Plan"), el("span", "count"));
        card.append(title, el("ol"));
        return card;
      }
      default: return el("div", "notice" + (part.error ? " error" : ""), part.text);
    }
  }

  function updatePart(part) {
    const node = part.node;
    switch (part.kind) {
      case "thinking":
        node.classList.toggle("live", !!part.live);
        node.querySelector("summary").textContent = part.live ? "Thinking\u2026" : "Thought";
        node.querySelector(".body").textContent = part.text;
        break;
      case "text":
        node.replaceChildren(markdown(part.text));
        node.classList.toggle("streaming", !!part.live);
        break;
      case "tool": updateTool(part); break;
      case "agent": updateAgent(part); break;
      case "plan": updatePlan(part); break;
      default: node.textContent = part.text;
    }
  }

  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }

  function shown(text) {
    return text.length > MAX_SHOWN ? text.slice(0, MAX_SHOWN) + "\n\u2026 (" + (text.length - MAX_SHOWN) + " more characters)" : text;
  }

  function section(card, cls, label, text, open) {
    let details = card.querySelector(":scope > details." + cls);
    if (!details) {
      details = el("details", cls);
      details.append(el("summary", null, label), el("pre", cls));
      if (open) details.open = true;
      const approval = card.querySelector(":scope > .approval");
      card.insertBefore(details, approval);
    }
    details.querySelector("pre").textContent = shown(text);
  }

  function updateTool(part) {
    const card = part.node;
    card.querySelector(":scope > .tool-head > .tool-name").textContent = part.name;
    const state = card.querySelector(":scope > .tool-head > .tool-state");
    state.className = "tool-state " + (part.state || "");
    state.replaceChildren();
    const labels = { streaming: "Writing arguments\u2026", running: "Running\u2026", ok: "Done", waiting: "Waiting for you", denied: "Denied", stopped: "Stopped" };
    if (part.state === "streaming" || part.state === "running") state.append(el("span", "spinner"));
    state.append(document.createTextNode(labels[part.state] || ""));
    if (part.args) section(card, "args", "Arguments", pretty(part.args), false);
    if (part.agents && part.agents.length) {
      // the sub-agents this call runs, between its arguments and its result
      let box = card.querySelector(":scope > .tool-agents");
      if (!box) {
        box = el("div", "tool-agents");
        card.insertBefore(box, card.querySelector(":scope > details.result") || card.querySelector(":scope > .approval"));
      }
      for (const agent of part.agents) {
        if (!agent.node) {
          agent.node = partNode(agent);
          box.append(agent.node);
        }
        updatePart(agent);
      }
    }
    if (part.result != null) section(card, "result", "Result", part.result, false);
    if (part.decision) {
      let box = card.querySelector(":scope > .approval");
      if (!box) {
        box = el("div", "approval");
        card.append(box);
      }
      box.replaceChildren(el("p", null, part.decision));
    }
  }

  function updateAgent(part) {
    const card = part.node;
    card.querySelector(":scope > .agent-head > .agent-name").textContent = part.name;
    const task = card.querySelector(":scope > .agent-head > .agent-task");
    task.textContent = part.task || "";
    task.title = part.task || "";
    const state = card.querySelector(":scope > .agent-head > .agent-state");
    state.className = "agent-state " + (part.state || "");
    state.replaceChildren();
    const labels = { running: "Working\u2026", ok: "Done", waiting: "Waiting for you", error: "Failed", stopped: "Stopped" };
    if (part.state === "running") state.append(el("span", "spinner"));
    state.append(document.createTextNode(labels[part.state] || ""));
    card.classList.toggle("live", part.state === "running");
    const body = card.querySelector(":scope > .agent-body");
    for (const child of part.parts) {
      if (!child.node) {           // shown again from what was kept
        child.node = partNode(child);
        body.append(child.node);
      }
      updatePart(child);
    }
  }

  function updatePlan(part) {
    part.node.classList.toggle("live", !!part.live);     // an in-progress step spins only while a run works on it
    const list = part.node.querySelector("ol");
    list.replaceChildren();
    let done = 0;
    for (const step of part.steps) {
      const status = ["pending", "in_progress", "completed"].includes(step.status) ? step.status : "pending";
      if (status === "completed") done++;
      const li = el("li", status);
      li.append(el("span", "box", status === "completed" ? "\u2713" : ""), el("span", "text", String(step.description)));
      list.append(li);
    }
    part.node.querySelector(".count").textContent = done + " / " + part.steps.length;
  }

  function addPart(turn, part) {
    turn.parts.push(part);
    part.node = partNode(part);
    (turn.kind === "agent" ? turn.node.querySelector(":scope > .agent-body") : turn.node).append(part.node);
    updatePart(part);
    scrollDown();
    return part;
  }

  function removePart(turn, part) {
    turn.parts = turn.parts.filter((p) => p !== part);
    part.node.remove();
  }

  // throttle Markdown re-rendering to one per frame
  const dirty = new Set();
  function touch(part) {
    if (dirty.size === 0) requestAnimationFrame(flush);
    dirty.add(part);
  }

  /** Renders what changed since the last frame: at each frame, and at once when a run ends. */
  function flush() {
    for (const p of dirty) updatePart(p);
    dirty.clear();
    scrollDown();
  }

  // ---- running ----
  function setBusy(busy, text) {
    $("send").hidden = busy;
    $("stop").hidden = !busy;
    $("status").textContent = text || idleStatus();
    updateSend();
  }

  /** What the top bar says when no run works: that calls wait for a decision, if they do. */
  function idleStatus() {
    const waiting = current && !running ? current.interrupts.length : 0;
    if (waiting === 0) return "";
    return waiting === 1 ? "A call waits for your decision" : waiting + " calls wait for your decision";
  }

  function updateSend() {
    $("send").disabled = !$("input").value.trim() || !!running;
  }

  function authHeaders() {
    return token ? { Authorization: "Bearer " + token } : {};
  }

  async function sendMessage() {
    const text = $("input").value.trim();
    if (!text || running) return;
    if (current.interrupts.length) {
      const waitingTurn = current.items[current.items.length - 1];
      if (!(waitingTurn && waitingTurn.parts && waitingTurn.parts.some((p) => p.decideFirst))) {
        notice(waitingTurn, "Decide on the waiting calls first: approve or deny each.", false).decideFirst = true;
      }
      return;
    }
    $("input").value = "";
    autosize();
    const item = { kind: "user", id: uuid(), text };
    current.items.push(item);
    if (current.items.filter((i) => i.kind === "user").length === 1) {
      current.title = text.length > 60 ? text.slice(0, 57) + "\u2026" : text;
      $("title").textContent = current.title;
    }
    $("empty").hidden = true;
    renderItem(item);
    scrollDown(true);
    saveThread();
    await run(undefined);
  }

  function notice(turn, text, error) {
    if (!turn || turn.kind !== "assistant") {
      turn = { kind: "assistant", parts: [] };
      current.items.push(turn);
      renderItem(turn);
    }
    return addPart(turn, { kind: "notice", text, error: !!error });
  }

  async function run(resume) {
    const controller = new AbortController();
    running = { controller };
    setBusy(true, "Working\u2026");
    // a resume carries on the turn whose calls waited: its plan, cards and decisions stay one turn
    const waited = current.items[current.items.length - 1];
    const carried = resume && waited && waited.kind === "assistant" && waited.node ? waited : null;
    const turn = carried || { kind: "assistant", parts: [] };
    if (!carried) {
      current.items.push(turn);
      renderItem(turn);
    }
    const body = {
      threadId: current.id,
      runId: uuid(),
      messages: current.items.filter((i) => i.kind === "user").map((i) => ({ id: i.id, role: "user", content: i.text })),
      tools: [],
      context: [],
      state: current.state || {},
      forwardedProps: {},
    };
    if (resume) body.resume = resume;
    let retry = false;
    const sentToken = token;
    try {
      const response = await fetch("agui", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...authHeaders() },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      if (response.status === 401) {
        $("token-button").hidden = false;
        retry = await askToken(!!sentToken);
        if (!retry) notice(turn, "This server needs an access token.", true);
      } else if (!response.ok) {
        let message = "The server answered " + response.status + ".";
        try {
          const json = await response.json();
          if (json && json.error && json.error.message) message = json.error.message;
        } catch (e) { /* not JSON */ }
        notice(turn, message, true);
      } else {
        await readEvents(response, turn);
      }
    } catch (e) {
      if (e && e.name === "AbortError") {
        closeLive(turn);
        notice(turn, "Stopped.", false);
      } else {
        notice(turn, "The server cannot be reached: " + (e && e.message ? e.message : e), true);
      }
    } finally {
      flush();
      closeLive(turn);
      if (turn.parts.length === 0 && !carried) {
        current.items = current.items.filter((i) => i !== turn);
        turn.node.remove();
      }
      running = null;
      setBusy(false);
      saveThread();
    }
    if (retry) {
      // the same request again, now with the token: the unsent turn was removed above
      await run(resume);
    }
  }

  function closeLive(turn) {
    for (const part of turn.parts) {
      if (part.live) {
        part.live = false;
        updatePart(part);
      }
      for (const agent of part.agents || []) closeLive(agent);
      if ((part.kind === "tool" && (part.state === "streaming" || part.state === "running"))
          || (part.kind === "agent" && part.state === "running")) {
        part.state = "stopped";
        updatePart(part);
      }
    }
  }

  async function readEvents(response, turn) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const ctx = { turn, byId: new Map(), attempt: [], subs: new Map() };
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let boundary;
      while ((boundary = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
        if (data) handle(JSON.parse(data), ctx);
      }
    }
  }

  function handle(event, ctx) {
    if (event.type === "SUBAGENT_STARTED") return startAgent(event, ctx);
    if (event.type === "SUBAGENT_FINISHED" || event.type === "SUBAGENT_ERROR") return endAgent(event, ctx);
    // a sub-agent's event goes to its card, as the run's own go to the turn
    if (event.subagentRunId && ctx.subs.has(event.subagentRunId)) ctx = ctx.subs.get(event.subagentRunId);
    const turn = ctx.turn;
    const part = (id) => ctx.byId.get(id);
    switch (event.type) {
      case "STEP_STARTED":
        if (ctx.answer && turn.parts.includes(ctx.answer.part)) removePart(turn, ctx.answer.part);   // it did not end the run
        ctx.answer = null;
        ctx.attempt = [];
        setBusy(true, (turn.kind === "agent" ? turn.name + " working" : "Working") + "\u2026 (" + event.stepName + ")");
        break;
      case "REASONING_MESSAGE_START":
        ctx.byId.set(event.messageId, track(ctx, addPart(turn, { kind: "thinking", text: "", live: true })));
        break;
      case "REASONING_MESSAGE_CONTENT": {
        const p = part(event.messageId);
        if (p) { p.text += event.delta; touch(p); }
        break;
      }
      case "REASONING_MESSAGE_END": {
        const p = part(event.messageId);
        if (p) { p.live = false; touch(p); }
        break;
      }
      case "TEXT_MESSAGE_START":
        if (ctx.answer && ctx.answer.ended && ctx.answer.part) {
          // the answer the loop-ending call streamed, now sent as the assistant's message: one part
          const p = ctx.answer.part;
          ctx.answer = null;
          p.text = "";
          p.live = true;
          ctx.byId.set(event.messageId, p);
          break;
        }
        ctx.byId.set(event.messageId, track(ctx, addPart(turn, { kind: "text", text: "", live: true })));
        break;
      case "TEXT_MESSAGE_CONTENT": {
        const p = part(event.messageId);
        if (p) { p.text += event.delta; touch(p); }
        break;
      }
      case "TEXT_MESSAGE_END": {
        const p = part(event.messageId);
        if (p) {
          p.live = false;
          if (!p.text.trim()) removePart(turn, p);
          else touch(p);
        }
        break;
      }
      case "TOOL_CALL_START": {
        if (HIDDEN_TOOLS.has(event.toolCallName)) {
          const key = ANSWER_ARGUMENT[event.toolCallName];
          const hidden = { hidden: true, key, args: "", part: null, ended: false };
          if (key) ctx.answer = hidden;
          ctx.byId.set(event.toolCallId, hidden);
          break;
        }
        const p = addPart(turn, { kind: "tool", id: event.toolCallId, name: event.toolCallName, args: "", result: null, state: "streaming" });
        ctx.byId.set(event.toolCallId, track(ctx, p));
        break;
      }
      case "TOOL_CALL_ARGS": {
        const p = part(event.toolCallId);
        if (p && !p.hidden) { p.args += event.delta; touch(p); }
        if (p && p.hidden && p.key) {
          p.args += event.delta;
          const text = partialString(p.args, p.key);
          if (text) {
            if (!p.part) p.part = track(ctx, addPart(turn, { kind: "text", text: "", live: true }));
            p.part.text = text;
            touch(p.part);
          }
        }
        break;
      }
      case "TOOL_CALL_END": {
        const p = part(event.toolCallId);
        if (p && !p.hidden) { p.state = "running"; touch(p); }
        if (p && p.hidden) p.ended = true;
        break;
      }
      case "TOOL_CALL_RESULT": {
        // a run that carries a waiting one on sends the results of that run's calls first
        const p = part(event.toolCallId) || earlierTool(event.toolCallId);
        if (p && !p.hidden) {
          p.result = typeof event.content === "string" ? event.content : JSON.stringify(event.content);
          if (p.state !== "denied") p.state = "ok";
          touch(p);
        }
        break;
      }
      case "STATE_SNAPSHOT":
        current.state = event.snapshot || {};
        showPlan(ctx);
        break;
      case "STATE_DELTA":
        current.state = applyPatch(current.state || {}, event.delta || []);
        showPlan(ctx);
        break;
      case "CUSTOM":
        if (event.name === "bellows.retry") {
          // the failed attempt's text is void: drop what was shown of it
          for (const p of ctx.attempt) if (turn.parts.includes(p)) removePart(turn, p);
          ctx.attempt = [];
          setBusy(true, "Retrying (attempt " + event.value.attempt + ")\u2026");
        }
        break;
      case "RUN_FINISHED": {
        const outcome = event.outcome || { type: "success" };
        if (outcome.type === "interrupt") {
          current.interrupts = outcome.interrupts || [];
          showInterrupts(turn, current.interrupts);
        } else if (outcome.type === "cancelled") {
          notice(turn, "Stopped.", false);
        }
        break;
      }
      case "RUN_ERROR":
        closeLive(turn);
        notice(turn, event.message || "The run failed.", true);
        break;
      default:
        break;
    }
  }

  /** A sub-agent's card, in the card of the call that runs it (or, for a call not shown, in its caller's). */
  function startAgent(event, ctx) {
    const caller = (event.parentSubagentRunId && ctx.subs.get(event.parentSubagentRunId)) || ctx;
    const call = ctx.byId.get(event.parentToolCallId);
    const agent = { kind: "agent", id: event.subagentRunId, name: event.name, task: (event.metadata && typeof event.metadata.task === "string" && event.metadata.task) || taskOf(call), parts: [], state: "running" };
    if (call && call.kind === "tool") {
      (call.agents = call.agents || []).push(agent);
      updatePart(call);
      scrollDown();
    } else {
      addPart(caller.turn, agent);
    }
    ctx.subs.set(agent.id, { turn: agent, byId: ctx.byId, attempt: [], subs: ctx.subs });
  }

  /** The task a call gave its agent (its "task" argument), for the card's head; "" when there is none. */
  function taskOf(call) {
    try {
      const task = call && call.args ? JSON.parse(call.args).task : "";
      return typeof task === "string" ? task : "";
    } catch (e) {
      return "";
    }
  }

  function endAgent(event, ctx) {
    const sub = ctx.subs.get(event.subagentRunId);
    if (!sub) return;
    const agent = sub.turn;
    closeLive(agent);
    if (event.type === "SUBAGENT_ERROR") {
      agent.state = "error";
      addPart(agent, { kind: "notice", text: event.message || "The sub-agent failed.", error: true });
    } else {
      agent.state = event.outcome && event.outcome.type === "suspended" ? "waiting" : "ok";
    }
    touch(agent);
  }

  /** The call {@code id} among {@code parts}, or in the sub-agents' cards they hold; undefined when none. */
  function findTool(parts, id) {
    for (const p of parts) {
      if (p.kind === "tool" && p.id === id) return p;
      for (const agent of p.agents || []) {
        const found = findTool(agent.parts, id);
        if (found) return found;
      }
      if (p.kind === "agent") {
        const found = findTool(p.parts, id);
        if (found) return found;
      }
    }
    return undefined;
  }

  /** The card of a call an earlier run of this conversation showed, or undefined. */
  function earlierTool(id) {
    for (let i = current.items.length - 1; i >= 0; i--) {
      const item = current.items[i];
      if (item.kind !== "assistant") continue;
      const found = findTool(item.parts, id);
      if (found) return found;
    }
    return undefined;
  }

  /** The string value of {@code key} in JSON still streaming: what has arrived of it, decoded. */
  function partialString(json, key) {
    const m = new RegExp('"' + key + '"\\s*:\\s*"').exec(json);
    if (!m) return null;
    const rest = json.slice(m.index + m[0].length);
    const escapes = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", '"': '"', "\\": "\\", "/": "/" };
    let out = "";
    for (let i = 0; i < rest.length; i++) {
      const c = rest[i];
      if (c === '"') break;
      if (c !== "\\") { out += c; continue; }
      if (i + 1 >= rest.length) break;
      const next = rest[i + 1];
      if (next === "u") {
        if (i + 5 >= rest.length) break;
        out += String.fromCharCode(parseInt(rest.slice(i + 2, i + 6), 16));
        i += 5;
      } else {
        out += escapes[next] !== undefined ? escapes[next] : next;
        i++;
      }
    }
    return out;
  }

  function track(ctx, part) {
    ctx.attempt.push(part);
    return part;
  }

  function showPlan(ctx) {
    const steps = current.state && Array.isArray(current.state.plan) ? current.state.plan : [];
    if (steps.length === 0) return;
    let plan = ctx.turn.parts.find((p) => p.kind === "plan");
    if (!plan) {
      plan = { kind: "plan", steps };
      ctx.turn.parts.unshift(plan);
      plan.node = partNode(plan);
      ctx.turn.node.prepend(plan.node);
    }
    plan.steps = steps;
    plan.live = true;     // closeLive stops it when the run ends
    updatePart(plan);
  }

  function applyPatch(doc, patch) {
    let result = JSON.parse(JSON.stringify(doc));
    for (const op of patch) {
      const path = String(op.path || "").split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
      if (path.length === 0) {
        if (op.op === "replace" || op.op === "add") result = op.value;
        continue;
      }
      let target = result;
      for (const key of path.slice(0, -1)) {
        if (target[key] == null) target[key] = {};
        target = target[key];
      }
      const key = path[path.length - 1];
      if (op.op === "remove") {
        if (Array.isArray(target)) target.splice(Number(key), 1); else delete target[key];
      } else if (op.op === "add" && Array.isArray(target)) {
        target.splice(key === "-" ? target.length : Number(key), 0, op.value);
      } else if (op.op === "add" || op.op === "replace") {
        target[key] = op.value;
      }
    }
    return result;
  }

  // ---- approvals ----
  function showInterrupts(turn, interrupts) {
    if (!turn || turn.kind !== "assistant" || !turn.node) return;
    const decisions = new Map();
    for (const interrupt of interrupts) {
      let part = findTool(turn.parts, interrupt.toolCallId);
      if (!part) {
        part = addPart(turn, { kind: "tool", id: interrupt.toolCallId || interrupt.id, name: (interrupt.metadata && interrupt.metadata.toolName) || "tool call", args: "", result: null });
      }
      part.state = "waiting";
      delete part.decision;
      for (const old of part.node.querySelectorAll(":scope > .approval")) old.remove();
      updatePart(part);
      const box = el("div", "approval");
      box.append(el("p", null, interrupt.message || "This call waits for your approval."));
      // Deny asks for a reason first (the model reads it); Enter in it, or Deny again, denies.
      const reason = el("input");
      reason.placeholder = "Why not? The agent reads your reason (optional)";
      reason.setAttribute("aria-label", "Reason for denying");
      reason.hidden = true;
      const approve = el("button", "primary", "Approve");
      const deny = el("button", "danger", "Deny");
      approve.type = deny.type = "button";
      const decide = (entry, label) => {
        decisions.set(interrupt.id, entry);
        for (const p of turn.parts.filter((x) => x.decideFirst)) removePart(turn, p);
        part.decision = label;
        part.state = entry.status === "resolved" && entry.payload.approved ? "running" : "denied";
        updatePart(part);
        if (decisions.size === interrupts.length) {
          current.interrupts = [];
          saveThread();
          run(interrupts.map((i) => decisions.get(i.id)));
        }
      };
      approve.addEventListener("click", () => decide({ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }, "Approved."));
      const denyNow = () => decide({ interruptId: interrupt.id, status: "resolved", payload: { approved: false, reason: reason.value.trim() } }, "Denied" + (reason.value.trim() ? ": " + reason.value.trim() : "."));
      deny.addEventListener("click", () => {
        if (reason.hidden) {
          reason.hidden = false;
          deny.textContent = "Deny with this reason";
          reason.focus();
        } else {
          denyNow();
        }
      });
      reason.addEventListener("keydown", (e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          denyNow();
        } else if (e.key === "Escape") {
          reason.hidden = true;
          deny.textContent = "Deny";
        }
      });
      box.append(reason, deny, approve);
      part.node.append(box);
    }
    scrollDown();
  }

  // ---- token ----
  /** Asks for the token; {@code refused} says the server turned down the one it was sent. */
  function askToken(refused) {
    return new Promise((resolve) => {
      const dialog = $("token-dialog");
      $("token-input").value = "";
      $("token-refused").hidden = !refused;
      const done = (ok) => {
        dialog.close();
        resolve(ok);
      };
      $("token-form").onsubmit = (e) => {
        e.preventDefault();
        token = $("token-input").value.trim();
        store.set("bellows.token", token);
        done(!!token);
      };
      $("token-cancel").onclick = () => done(false);
      dialog.showModal();
    });
  }
  $("token-button").addEventListener("click", () => askToken());
  if (token) $("token-button").hidden = false;

  // ---- composer ----
  function autosize() {
    const input = $("input");
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight, 220) + "px";
    updateSend();
  }
  $("input").addEventListener("input", autosize);
  $("input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      sendMessage();
    } else if (e.key === "Escape" && running) {
      running.controller.abort();
    }
  });
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    sendMessage();
  });
  $("stop").addEventListener("click", () => { if (running) running.controller.abort(); });
  $("new-chat").addEventListener("click", () => openThread(null));
  $("open-sidebar").addEventListener("click", () => $("app").classList.add("sidebar-open"));
  $("close-sidebar").addEventListener("click", () => $("app").classList.remove("sidebar-open"));

  const last = store.get("bellows.current", null);
  openThread(threads.some((t) => t.id === last) ? last : null);
  updateSend();
})();
