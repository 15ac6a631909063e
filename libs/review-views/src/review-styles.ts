/**
 * The console's and the reports' one stylesheet: inlined into reports (self-contained: no request leaves the file)
 * and injected by the console. Print rules keep the PDF readable: no sticky parts, sections not split mid-heading.
 */
export const reviewStyles = `
:root { --fg: #1d232b; --muted: #5b6673; --line: #d8dde3; --bad: #b3261e; --bad-bg: #fdecea; --ok: #1e7b34;
  --ok-bg: #e7f5ea; --warn: #8a5a00; --warn-bg: #fff4d6; --mark: #ffe27a; --accent: #2f6fb3; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg);
  margin: 0; background: #f6f7f9; }
main, .report { max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; background: #fff; }
nav.top { background: #1d232b; color: #fff; padding: 10px 24px; display: flex; gap: 18px; align-items: center; }
nav.top a { color: #fff; text-decoration: none; font-weight: 600; }
nav.top .session, nav.top form.api-key { margin-left: auto; font-size: 13px; } nav.top .session.refused { color: #ffb4ab; }
.report-downloads { display: flex; gap: 10px; align-items: center; }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 17px; margin: 24px 0 8px; border-bottom: 1px solid var(--line);
  padding-bottom: 4px; break-after: avoid; } h3 { font-size: 15px; margin: 12px 0 4px; }
.meta, .note { color: var(--muted); margin: 2px 0; } .note { font-size: 12px; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; background: #f0f2f5; } td.number, th.number { text-align: right; }
tr.failed td:first-child, tr.failed td:first-child { border-left: 3px solid var(--bad); }
.summary { display: flex; gap: 16px; flex-wrap: wrap; margin: 12px 0; }
.stat { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; min-width: 180px; }
.stat-value { display: block; font-size: 24px; font-weight: 700; } .stat-label { color: var(--muted); font-size: 12px; }
.ok { color: var(--ok); } .bad { color: var(--bad); }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 11.5px; font-weight: 600;
  background: #e8ebef; margin-right: 4px; }
.severity-critical, .severity-fail, .status-fail, .outcome-failed { background: var(--bad-bg); color: var(--bad); }
.severity-major { background: var(--warn-bg); color: var(--warn); }
.severity-minor { background: #eef2f7; color: #41536b; }
.status-pass, .outcome-passed { background: var(--ok-bg); color: var(--ok); }
.violation { border-left: 4px solid var(--warn); padding: 4px 12px; margin: 8px 0; background: #fffdf6; break-inside: avoid; }
.violation.severity-critical { border-left-color: var(--bad); background: #fff8f7; }
.clause { color: var(--fg); } mark, .evidence-text { background: var(--mark); color: #000; padding: 0 2px; }
ul.evidence-list { margin: 4px 0 4px 18px; padding: 0; font-size: 13px; }
.verdicts ul { list-style: none; padding: 0; margin: 0; }
.verdict { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 6px 0; break-inside: avoid; }
.verdict-fail { border-color: var(--bad); background: #fff8f7; }
.verdict .description { margin: 4px 0; color: var(--muted); }
.annotations { margin-top: 6px; } .annotation { font-size: 13px; padding: 4px 8px; border-radius: 4px; margin: 3px 0; }
.annotation.agree { background: var(--ok-bg); } .annotation.dispute { background: var(--warn-bg); }
.chat-thread, .mail-conversation { border: 1px solid var(--line); border-radius: 8px; margin: 10px 0; overflow: hidden;
  break-inside: avoid; }
.thread-head { background: #f0f2f5; padding: 6px 12px; font-weight: 600; }
.chat-message { padding: 8px 12px; border-top: 1px solid #eef0f3; }
.chat-message.reply { margin-left: 28px; border-left: 3px solid var(--line); }
.chat-message .author { font-weight: 700; } .time { color: var(--muted); font-size: 12px; }
.chat-message .text { white-space: pre-wrap; margin-top: 2px; }
.mail-message { padding: 8px 12px; border-top: 1px solid #eef0f3; }
.mail-head { font-size: 13px; border-bottom: 1px dashed var(--line); padding-bottom: 6px; }
.mail-body { white-space: pre-wrap; font: inherit; margin: 8px 0 0; }
.external { color: var(--bad); font-weight: 600; }
.evidence { outline: 2px solid var(--bad); outline-offset: -2px; background: var(--bad-bg) !important; }
.edited, .deleted, .files { font-size: 12px; color: var(--muted); }
.refused td { color: var(--bad); } .event-name { color: var(--muted); font-size: 12px; }
details.record { border: 1px solid var(--line); border-radius: 6px; margin: 4px 0; padding: 4px 8px; }
details.record table th { width: 30%; background: none; font-weight: 500; } td.before { text-decoration: line-through; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; background: #f0f2f5; padding: 10px; border-radius: 6px; }
.filters label, form.review-form label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
form.review-form { display: flex; gap: 8px; flex-wrap: wrap; align-items: end; margin-top: 6px; }
form.review-form textarea { min-width: 320px; min-height: 38px; }
input, select, textarea, button { font: inherit; padding: 4px 6px; }
button { background: var(--accent); color: #fff; border: 0; border-radius: 4px; padding: 5px 12px; cursor: pointer; }
.form-error, .page-error { color: var(--bad); font-weight: 600; } .form-saved { color: var(--ok); font-weight: 600; }
.reward-chart { max-width: 100%; height: auto; }
.report-appendix { break-before: page; }
@media print { body { background: #fff; } main, .report { padding: 0; max-width: none; } details > summary { list-style: none; }
  .evidence { outline-width: 2px; } a { color: inherit; text-decoration: none; } }
`;
