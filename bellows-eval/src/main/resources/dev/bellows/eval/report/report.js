"use strict";
(function () {
  var filters = document.querySelectorAll("[data-filter]");
  function show(filter) {
    document.querySelectorAll("[data-case]").forEach(function (el) {
      el.hidden = !(filter === "all" || el.getAttribute("data-" + filter) === "true");
    });
    filters.forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-filter") === filter)); });
  }
  filters.forEach(function (b) { b.addEventListener("click", function () { show(b.getAttribute("data-filter")); }); });
  document.querySelectorAll("[data-runs]").forEach(function (b) {
    b.addEventListener("click", function () {
      var open = b.getAttribute("data-runs") === "open";
      document.querySelectorAll("details.case, details.run").forEach(function (d) {
        if (!d.hidden) { d.open = open; }
      });
    });
  });
  function openTarget() {
    var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === "DETAILS") { target.hidden = false; target.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
(function () {
  // A run's transcript, drawn from its events (the data block beside it) when the run is opened:
  // the task, each step's thinking and text, each tool call with its arguments and its result or
  // error, plan changes, retries and the end. Whole blocks come from the *_end events; the deltas
  // count only for a block the run never finished (it stopped mid-answer), shown as far as it came.
  // A call is shown from its result, which carries its arguments; a decoded call whose result never
  // came is shown as such. Every text goes in as a text node: nothing from a report is markup.
  var LIMIT = 20000;
  var ANSWERED = { task_completion: true, converse: true, ask_question: true };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text != null) { e.textContent = text; }
    return e;
  }
  /** Appends text cut to LIMIT characters, with a note saying how much was left out. */
  function cut(parent, text) {
    if (text.length <= LIMIT) { parent.append(text); return parent; }
    var code = text.charCodeAt(LIMIT - 1);
    var end = code >= 0xd800 && code <= 0xdbff ? LIMIT - 1 : LIMIT;
    parent.append(text.slice(0, end), el("span", "cut", " \u2026 (" + (text.length - end).toLocaleString("en-US") + " more characters not shown)"));
    return parent;
  }
  // an events file is outside input: a member of the wrong type reads as 0 or "", never an error
  function str(v) { return typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : ""; }
  function int(v) {
    var n = typeof v === "number" ? v : typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? parseInt(v, 10) : 0;
    return isFinite(n) ? Math.trunc(n) : 0;
  }
  function orNull(event, field) { var v = event[field]; return v == null ? null : str(v); }

  function read(text, file, first) {
    var entries = [];
    var decoded = [];       // calls decoded, their results to come
    var thinking = null;
    var message = null;
    function unfinished() {
      if (thinking && thinking.join("")) { entries.push({ kind: "thinking", text: thinking.join(""), cut: true }); }
      if (message && message.join("")) { entries.push({ kind: "message", text: message.join(""), cut: true }); }
      thinking = null;
      message = null;
    }
    function finish() {
      unfinished();
      entries.push.apply(entries, decoded);
      decoded = [];
    }
    function resolved(name) {
      for (var i = 0; i < decoded.length; i++) {
        if (decoded[i].name === name) { decoded.splice(i, 1); return; }
      }
    }
    function call(e, name, args, result, error) {
      return { kind: "call", server: orNull(e, "server_name"), name: name, args: args, result: result, error: error };
    }
    var lines = text.split("\n");
    // a whole number beyond 2^53 (an id, a time in nanoseconds) is shown with the digits the events
    // hold: JSON.parse alone rounds it to the nearest double; where the browser gives a value's source
    // text to the reviver, such a number is kept as that text (JSON.rawJSON), which JSON.stringify writes as it is
    var exact = typeof JSON.rawJSON === "function" ? function (key, value, context) {
      return typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)
          && context && typeof context.source === "string" ? JSON.rawJSON(context.source) : value;
    } : undefined;
    for (var n = 0; n < lines.length; n++) {
      if (!lines[n].trim()) { continue; }
      var e;
      try { e = JSON.parse(lines[n], exact); } catch (x) { entries.push({ kind: "problem", text: file + " line " + (first + n) + " is not JSON" }); continue; }
      if (e === null || typeof e !== "object" || Array.isArray(e)) { continue; }
      if ("parent_call_id" in e) {
        // a sub-agent's work shows as the task it was given; its answer is the root's call's result, shown there
        if (e.type === "loop_start") { entries.push({ kind: "note", text: "agent " + str(e.agent) + " works on: " + str(e.task) }); }
        continue;
      }
      var content = str(e.content);
      switch (e.type) {
        case "loop_start": entries.push({ kind: "task", text: str(e.task) }); break;
        case "iteration_start": entries.push({ kind: "step", iteration: int(e.iteration) }); break;
        case "thinking_start": thinking = []; break;
        case "thinking_content": if (thinking) { thinking.push(content); } break;
        case "thinking_end":
          thinking = null;
          if (content.trim()) { entries.push({ kind: "thinking", text: content, cut: false }); }
          break;
        case "message_start": message = []; break;
        case "message_content": if (message) { message.push(content); } break;
        case "message_end":
          message = null;
          if (content.trim()) { entries.push({ kind: "message", text: content, cut: false }); }
          break;
        case "tool_call_end":
          if (!("error" in e) && str(e.tool_name) !== "task_completion") { decoded.push(call(e, str(e.tool_name), e.arguments, null, null)); }
          break;
        case "tool_result":
          resolved(str(e.tool_name));
          if (str(e.tool_name) !== "task_completion") { entries.push(call(e, str(e.tool_name), e.arguments, str(e.result), null)); }   // its result is the answer
          break;
        case "tool_result_error":
          if (orNull(e, "tool_name") !== null) { resolved(orNull(e, "tool_name")); }
          entries.push(call(e, orNull(e, "tool_name"), undefined, null, str(e.error)));
          break;
        case "plan_update":
          entries.push({ kind: "plan", steps: (Array.isArray(e.steps) ? e.steps : []).map(function (s) {
            return { description: str(s && s.description), status: str(s && s.status) };
          }) });
          break;
        case "retry":
          unfinished();
          entries.push({ kind: "note", text: "retry " + int(e.attempt) + " in " + int(e.delay_ms) + " ms: " + str(e.reason) });
          break;
        case "no_tool_call": entries.push({ kind: "note", text: "the answer called no tool" }); break;
        case "approval_required":
          entries.push({ kind: "note", text: "waits for approval: " + str(e.tool_name) + " " + (e.arguments === undefined ? "" : JSON.stringify(e.arguments)) });
          break;
        case "approval":
          entries.push({ kind: "note", text: str(e.decision) + ": " + str(e.id) + (str(e.reason) ? " (" + str(e.reason) + ")" : "") });
          break;
        case "loop_end":
          finish();
          entries.push({ kind: "end", reason: str(e.reason), result: str(e.result) });
          break;
        default: break;     // the deltas of tool calls, sections: what the end events above already hold
      }
    }
    finish();
    return entries;
  }

  function labelled(cls, label, text) {
    var div = el("div", cls, null);
    div.append(el("span", "label", label));
    return cut(div, text);
  }

  function tool(call) {
    var state = call.error !== null ? "bad" : call.result !== null ? "ok" : "none";
    var div = el("div", "t-tool " + state, null);
    var head = el("div", "t-head", null);
    head.append(el("span", "t-name", call.name === null ? "(a call that could not be decoded)" : call.name));
    if (call.server !== null) { head.append(el("span", "dim", call.server)); }
    head.append(el("span", "t-state " + state, state === "ok" ? "ok" : state === "bad" ? "error" : "no result"));
    div.append(head);
    if (call.args !== undefined) { div.append(cut(el("pre", "t-args", null), JSON.stringify(call.args, null, 2))); }
    if (call.error !== null || call.result !== null) { div.append(cut(el("pre", "t-out", null), call.error !== null ? call.error : call.result)); }
    return div;
  }

  /** One entry of a run's transcript; passed: the run's, so a failed run's answer is not shown as a success. */
  function render(entry, passed) {
    switch (entry.kind) {
      case "task": return labelled("t-task", "Task", entry.text);
      case "step": return el("div", "t-step", "Step " + entry.iteration);
      case "thinking": {
        var think = el("details", "t-think", null);
        think.append(el("summary", null, entry.cut ? "Thinking (cut off)" : "Thinking"), cut(el("pre", null, null), entry.text));
        return think;
      }
      case "message": {
        var said = cut(el("div", "t-msg", null), entry.text);
        if (entry.cut) { said.append(el("span", "cut", " (cut off)")); }
        return said;
      }
      case "call": return tool(entry);
      case "plan": {
        var plan = el("ol", "t-plan", null);
        entry.steps.forEach(function (step) {
          var item = el("li", step.status, step.description + " ");
          item.append(el("span", "dim", step.status.replace(/_/g, " ")));
          plan.append(item);
        });
        return plan;
      }
      case "note": return cut(el("div", "t-note", null), entry.text);
      case "problem": return el("div", "t-problem", entry.text);
      default: {
        var answered = ANSWERED[entry.reason] === true;
        return labelled("t-end" + (!answered ? " bad" : passed ? "" : " plain"),
          answered ? "Answer" : "Ended: " + entry.reason.replace(/_/g, " "), entry.result);
      }
    }
  }

  /** Draws a run's transcript once, after its events and before what the page says could not be read. */
  function draw(run) {
    var box = run.querySelector(":scope > .run-body > .transcript");
    if (!box || box.classList.contains("drawn")) { return; }
    box.classList.add("drawn");
    var data = box.querySelector(":scope > script.t-events");
    if (!data) { return; }
    var passed = box.getAttribute("data-passed") === "true";
    var entries = read(data.textContent, box.getAttribute("data-events"), Number(box.getAttribute("data-line")));
    data.after.apply(data, entries.map(function (entry) { return render(entry, passed); }));
    var report = box.querySelector(":scope > .t-report");
    if (report && entries.some(function (entry) { return entry.kind === "end"; })) { report.remove(); }
  }
  document.addEventListener("toggle", function (event) {
    if (event.target.matches && event.target.matches("details.run") && event.target.open) { draw(event.target); }
  }, true);
  document.querySelectorAll("details.run[open]").forEach(draw);
})();
