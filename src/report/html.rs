//! The HTML report: one self-contained file (no network, no external script or style), read in a
//! browser. The verdict and the root causes open it; the failing cases follow, expanded, each with
//! its findings, whitespace-visible diffs and rerun command; warnings next, then INFO and passes
//! collapsed. Filters by outcome, area and rule (also preset from the address: `#outcome=fail`,
//! `#rule=delete.not-root`), and each root cause links to its cases.
//!
//! Every text a backend sent goes through [`super::text::for_display`] (escaped, bounded) and
//! then HTML escaping.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::human::verdict_line;
use super::text::for_display;
use super::{Report, Verdict};
use crate::diff::{Glyphs, push_report_diff};
use crate::judge::grade::{CaseResult, Outcome};
use crate::spec::Spec;

/// `text` escaped for HTML text and attribute values, after [`for_display`].
pub(crate) fn esc(text: &str) -> String {
    let shown = for_display(text);
    let mut out = String::with_capacity(shown.len() + 16);
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An id usable in a fragment (`#case-…`): the case id's safe characters.
fn anchor(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The order cases are listed in: what a reader acts on first.
fn rank(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Fail => 0,
        Outcome::Error => 1,
        Outcome::Warn => 2,
        Outcome::Info => 3,
        Outcome::Skip => 4,
        Outcome::Pass => 5,
    }
}

/// The report as one self-contained HTML page.
pub fn render(report: &Report, spec: &Spec) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let verdict = verdict_line(report);
    let class = match report.verdict() {
        Verdict::Conformant => "good",
        Verdict::NotConformant => "bad",
        Verdict::BackendBroke => "broke",
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
         <title>memspec: {}</title><style>{STYLE}</style></head><body>\n",
        esc(&report.backend)
    );
    let _ = writeln!(
        out,
        "<header><h1>memspec conformance report</h1><p class=\"meta\">backend <code>{}</code> · judged by revision <b>{}</b></p>\
         <p id=\"verdict\" class=\"verdict {class}\">{}</p>{}</header>",
        esc(&report.backend),
        report.revision,
        esc(&verdict),
        crash_paragraph(report)
    );
    root_causes(&mut out, report);
    filters(&mut out, report);
    cases(&mut out, report, spec);
    let _ = writeln!(
        out,
        "<footer><p class=\"verdict {class}\">{}</p>{}</footer><script>{SCRIPT}</script></body></html>",
        esc(&verdict),
        crash_paragraph(report)
    );
    out
}

/// The crash lane's own verdict line, when it ran.
fn crash_paragraph(report: &Report) -> String {
    let Some(line) = report.crash_line() else {
        return String::new();
    };
    let class = if line.starts_with("survives crashes: yes") {
        "good"
    } else {
        "bad"
    };
    format!("<p class=\"verdict {class}\">{}</p>", esc(&line))
}

fn root_causes(out: &mut String, report: &Report) {
    let causes = report.root_causes();
    let causes: Vec<_> = causes
        .iter()
        .filter(|c| c.level != crate::spec::Level::Info)
        .collect();
    out.push_str("<section id=\"causes\"><h2>Root causes, worst first</h2>\n");
    if causes.is_empty() {
        out.push_str("<p>None: no finding above INFO.</p></section>\n");
        return;
    }
    out.push_str(
        "<table><thead><tr><th>harm</th><th>level</th><th>rule</th><th>cases</th><th>first case</th><th>what it said</th></tr></thead><tbody>\n",
    );
    for cause in causes {
        let harm = cause.harm.label().unwrap_or("");
        let _ = writeln!(
            out,
            "<tr class=\"cause\"><td class=\"harm\">{harm}</td><td>{}</td>\
             <td><a class=\"rule-link\" href=\"#rule={rule}\" data-rule=\"{rule}\">{rule}</a></td><td>{}</td>\
             <td><a href=\"#case-{}\">{}</a></td><td>{}</td></tr>",
            cause.level.as_str(),
            cause.cases,
            anchor(&cause.first_case),
            esc(&cause.first_case),
            esc(&cause.message),
            rule = esc(cause.rule.as_str()),
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn filters(out: &mut String, report: &Report) {
    let counts = report.counts();
    out.push_str("<section id=\"filters\"><h2>Cases</h2><form>");
    for outcome in [
        Outcome::Fail,
        Outcome::Error,
        Outcome::Warn,
        Outcome::Info,
        Outcome::Skip,
        Outcome::Pass,
    ] {
        let n = counts.get(&outcome).copied().unwrap_or(0);
        // Passes and INFO are there to look at, not to act on: off until asked for.
        let checked = if matches!(outcome, Outcome::Pass | Outcome::Info | Outcome::Skip) {
            ""
        } else {
            " checked"
        };
        let _ = write!(
            out,
            "<label class=\"o-{o}\"><input type=\"checkbox\" name=\"outcome\" value=\"{o}\"{checked}> {O} ({n})</label> ",
            o = outcome.as_str(),
            O = outcome.as_str().to_uppercase(),
        );
    }
    let areas: BTreeSet<&str> = report.results.iter().map(|r| r.area.as_str()).collect();
    out.push_str("<select id=\"area\"><option value=\"\">every area</option>");
    for area in areas {
        let _ = write!(out, "<option>{}</option>", esc(area));
    }
    out.push_str("</select> ");
    let rules: BTreeSet<&str> = report
        .results
        .iter()
        .flat_map(|r| r.findings.iter().map(|f| f.rule.as_str()))
        .collect();
    out.push_str("<select id=\"rule\"><option value=\"\">every rule</option>");
    for rule in rules {
        let _ = write!(out, "<option>{}</option>", esc(rule));
    }
    out.push_str("</select> <span id=\"shown\"></span></form></section>\n<section id=\"cases\">\n");
}

fn cases(out: &mut String, report: &Report, spec: &Spec) {
    let mut ordered: Vec<&CaseResult> = report.results.iter().collect();
    ordered.sort_by_key(|r| rank(r.outcome));
    for result in ordered {
        case(out, report, spec, result);
    }
    out.push_str("</section>\n");
}

fn case(out: &mut String, report: &Report, spec: &Spec, result: &CaseResult) {
    let outcome = result.outcome.as_str();
    let open = if matches!(
        result.outcome,
        Outcome::Fail | Outcome::Error | Outcome::Warn
    ) {
        " open"
    } else {
        ""
    };
    let rules: BTreeSet<&str> = result.findings.iter().map(|f| f.rule.as_str()).collect();
    let _ = writeln!(
        out,
        "<details class=\"case o-{outcome}\" id=\"case-{}\" data-outcome=\"{outcome}\" data-area=\"{}\" data-rules=\"{}\"{open}>\
         <summary><span class=\"badge o-{outcome}\">{}</span> <b>{}</b> <span class=\"title\">{}</span></summary>",
        anchor(&result.id),
        esc(&result.area),
        esc(&rules.into_iter().collect::<Vec<_>>().join(" ")),
        outcome.to_uppercase(),
        esc(&result.id),
        esc(&result.title),
    );
    if let Some(reason) = &result.reason {
        let _ = writeln!(out, "<p class=\"reason\">{}</p>", esc(reason));
    }
    if let Some(reason) = &result.baselined {
        let _ = writeln!(
            out,
            "<p class=\"reason\">accepted by the baseline: {}</p>",
            esc(reason)
        );
    }
    // What to act on first: findings that follow from none, worst first; then consequences.
    let mut findings: Vec<_> = result.findings.iter().collect();
    findings.sort_by_key(|f| (f.follows.is_some(), std::cmp::Reverse(f.weight())));
    for finding in findings {
        let follows = finding
            .follows
            .as_ref()
            .map(|cause| {
                format!(
                    " <span class=\"follows\">follows from {}</span>",
                    esc(&cause.to_string())
                )
            })
            .unwrap_or_default();
        let quote = super::rule_text(spec, finding.rule.as_str())
            .map(|text| format!("<blockquote>{}</blockquote>", esc(text)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<div class=\"finding l-{level}\"><p><span class=\"level\">{level}</span> <code>{}</code> {}{follows}</p>{quote}",
            esc(finding.rule.as_str()),
            esc(&finding.message),
            level = finding.level.as_str(),
        );
        if let (Some(expected), Some(actual)) = (finding.expected_for_diff(), &finding.actual) {
            let mut diff = String::new();
            push_report_diff(
                &mut diff,
                (expected, actual),
                Glyphs::PLAIN,
                "",
                false,
                "the rerun command shows them all",
            );
            out.push_str("<pre class=\"diff\">");
            for line in diff.lines() {
                let class = match line.chars().next() {
                    Some('-') => "del",
                    Some('+') => "ins",
                    _ => "ctx",
                };
                // Each span is a block of its own: no newline between them in the <pre>.
                let _ = write!(out, "<span class=\"{class}\">{}</span>", esc(line));
            }
            out.push_str("</pre>");
        }
        out.push_str("</div>\n");
    }
    let _ = writeln!(
        out,
        "<p class=\"rerun\">rerun: <code>{}</code></p></details>",
        esc(&report.repro(&result.id))
    );
}

pub(crate) const STYLE: &str = r#"
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em;color:#1b1b1b}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
.verdict{font-size:1.25em;font-weight:600;padding:.5em .8em;border-radius:6px}
.verdict.good{background:#e3f6e3}.verdict.bad{background:#fde2e1}.verdict.broke{background:#fff0c2}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}
td.harm{font-weight:700;color:#a00}
details.case{border:1px solid #ddd;border-radius:6px;margin:.4em 0;padding:.3em .7em}
details.case[hidden]{display:none}
.badge{display:inline-block;min-width:3.6em;text-align:center;border-radius:4px;font-size:12px;font-weight:700;padding:0 .3em}
.o-fail .badge,.badge.o-fail{background:#c62828;color:#fff}.badge.o-error{background:#8e24aa;color:#fff}
.badge.o-warn{background:#f9a825}.badge.o-info{background:#90caf9}.badge.o-pass{background:#a5d6a7}.badge.o-skip{background:#ddd}
.finding{margin:.5em 0 .5em .5em;border-left:3px solid #ccc;padding-left:.6em}
.finding.l-MUST{border-color:#c62828}.finding.l-SHOULD{border-color:#f9a825}
.level{font-weight:700}.follows{color:#666;font-style:italic}
blockquote{margin:.2em 0;color:#555;border-left:2px solid #eee;padding-left:.5em}
pre.diff{background:#f7f7f7;padding:.4em;overflow-x:auto;white-space:pre}
pre.diff .del{background:#fde2e1;display:block}pre.diff .ins{background:#e3f6e3;display:block}pre.diff .ctx{display:block}
#filters label{margin-right:.6em}
"#;

const SCRIPT: &str = r#"
(function(){
  var boxes=[].slice.call(document.querySelectorAll('input[name=outcome]'));
  var area=document.getElementById('area'), rule=document.getElementById('rule');
  var cases=[].slice.call(document.querySelectorAll('details.case'));
  function apply(){
    var on={};boxes.forEach(function(b){on[b.value]=b.checked;});
    var shown=0;
    cases.forEach(function(c){
      var ok=on[c.dataset.outcome]&&(!area.value||c.dataset.area===area.value)&&
        (!rule.value||(' '+c.dataset.rules+' ').indexOf(' '+rule.value+' ')>=0);
      c.hidden=!ok;if(ok)shown++;
    });
    document.getElementById('shown').textContent=shown+' of '+cases.length+' cases shown';
  }
  function fromHash(){
    var h=decodeURIComponent(location.hash.slice(1));
    if(h.indexOf('case-')===0)return;
    h.split('&').forEach(function(kv){
      var p=kv.split('='),k=p[0],v=p.slice(1).join('=');
      if(k==='outcome'){var want=v.split(',');boxes.forEach(function(b){b.checked=want.indexOf(b.value)>=0;});}
      if(k==='area')area.value=v;
      if(k==='rule'){rule.value=v;boxes.forEach(function(b){b.checked=true;});}
    });
    apply();
  }
  boxes.forEach(function(b){b.addEventListener('change',apply);});
  area.addEventListener('change',apply);rule.addEventListener('change',apply);
  window.addEventListener('hashchange',fromHash);
  fromHash();apply();
})();
"#;
