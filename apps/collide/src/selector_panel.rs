//! The meta-broadphase's panel: which candidate runs (and what runs beside it: a probe on whole frames, a
//! sampled probe on a sub-box, a build on another thread), a timeline of the last frames coloured by it with a
//! tick where something ran beside, every candidate's predicted cost as bars with the build a switch to it
//! would be charged, and the last decisions with their reasons.

use collide_selector::log::MAX_CANDIDATES;
use collide_selector::{CandidateReport, DecisionKind, Selector};
use egui::{Color32, RichText, Ui};
use std::collections::VecDeque;

/// Frames the timeline strip covers (ten seconds at 60 Hz).
pub const TIMELINE_FRAMES: usize = 600;
/// Decisions listed.
const DECISIONS_SHOWN: usize = 8;

/// One colour per candidate, in the selector's candidate order (the same in the strip, the bars and the log):
/// Tableau's ten qualitative colours and six more, one for each of the most candidates a selector takes
/// ([`MAX_CANDIDATES`]; eleven are registered today).
const COLORS: [Color32; MAX_CANDIDATES] = [
    Color32::from_rgb(78, 121, 167),
    Color32::from_rgb(242, 142, 43),
    Color32::from_rgb(225, 87, 89),
    Color32::from_rgb(118, 183, 178),
    Color32::from_rgb(89, 161, 79),
    Color32::from_rgb(237, 201, 72),
    Color32::from_rgb(176, 122, 161),
    Color32::from_rgb(255, 157, 167),
    Color32::from_rgb(156, 117, 95),
    Color32::from_rgb(186, 176, 172),
    Color32::from_rgb(23, 190, 207),
    Color32::from_rgb(188, 189, 34),
    Color32::from_rgb(227, 119, 194),
    Color32::from_rgb(140, 86, 75),
    Color32::from_rgb(153, 153, 255),
    Color32::from_rgb(255, 204, 102),
];

/// The colour of candidate `index`.
#[must_use]
pub fn color(index: usize) -> Color32 {
    COLORS[index % COLORS.len()]
}

/// What ran beside the active candidate on a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beside {
    /// Nothing.
    Nothing,
    /// A probe on whole frames.
    Probe,
    /// A sampled probe (on a sub-box of the bodies).
    Sample,
    /// A build on another thread.
    Build,
}

impl Beside {
    /// What runs beside the active candidate of `selector` now.
    #[must_use]
    pub fn of(selector: &Selector) -> Self {
        if selector.probing().is_some() {
            Self::Probe
        } else if selector.sampling().is_some() {
            Self::Sample
        } else if selector.building().is_some() {
            Self::Build
        } else {
            Self::Nothing
        }
    }

    /// The tick's colour on the timeline (none for nothing).
    fn tick(self) -> Option<Color32> {
        match self {
            Self::Nothing => None,
            Self::Probe => Some(Color32::WHITE),
            Self::Sample => Some(Color32::from_rgb(120, 200, 255)),
            Self::Build => Some(Color32::from_rgb(255, 170, 60)),
        }
    }
}

/// Which candidate answered each of the last [`TIMELINE_FRAMES`] steps, and what ran beside it. Allocated once.
#[derive(Debug)]
pub struct Timeline {
    steps: VecDeque<(u8, Beside)>,
}

impl Default for Timeline {
    fn default() -> Self {
        Self { steps: VecDeque::with_capacity(TIMELINE_FRAMES) }
    }
}

impl Timeline {
    /// Record one step: the index of the candidate that answered, and what ran beside it.
    pub fn push(&mut self, candidate: usize, beside: Beside) {
        if self.steps.len() == TIMELINE_FRAMES {
            self.steps.pop_front();
        }
        self.steps.push_back((candidate as u8, beside));
    }

    /// Forget everything (a new scene or a new algorithm).
    pub fn clear(&mut self) {
        self.steps.clear();
    }
}

/// The panel's contents.
pub fn show(ui: &mut Ui, selector: &Selector, timeline: &Timeline) {
    let names = selector.candidate_names();
    let index = |name: &str| names.iter().position(|n| *n == name).unwrap_or(0);
    let active = collide_broadphase::Broadphase::active_name(selector);
    ui.horizontal(|ui| {
        ui.label("running");
        ui.label(RichText::new(active).strong().color(color(index(active))));
        if let Some(p) = selector.probing() {
            ui.label(RichText::new(format!("· probing {p}")).color(color(index(p))));
        }
        if let Some(p) = selector.sampling() {
            ui.label(RichText::new(format!("· sampling {p}")).color(color(index(p))))
                .on_hover_text("measured with the running candidate on a sub-box holding a few percent of the bodies");
        }
        if let Some(p) = selector.building() {
            ui.label(RichText::new(format!("· building {p} beside")).color(color(index(p))))
                .on_hover_text("built on another thread while the running candidate answers, so no frame hitches");
        }
    });
    strip(ui, timeline);
    let t = selector.totals();
    let total = (t.active_ms + t.probe_ms + t.overhead_ms).max(1e-9);
    ui.label(
        RichText::new(format!(
            "{} switches · {} probes, {} of them sampled ({:.1}% of its time) · {} builds beside ({:.0} ms on their \
             thread) · own overhead {:.1}%",
            t.switches,
            t.probes,
            t.sampled,
            100.0 * t.probe_ms / total,
            t.builds_beside,
            t.beside_ms,
            100.0 * t.overhead_ms / total
        ))
        .small(),
    );
    ui.add_space(4.0);
    ui.label(
        RichText::new("predicted ms per frame (active: measured) · + the build a switch to it is charged")
            .small()
            .weak(),
    )
    .on_hover_text("? the prior alone predicts it · ≈ measured on a sample · no mark: measured on whole frames");
    bars(ui, selector);
    ui.add_space(4.0);
    let f = selector.features();
    ui.label(RichText::new(format!("features: {f}")).small()).on_hover_text(
        "pairs/body: local crowding · speed: centre displacement per frame over box size · clustering: 1 for \
         uniform · size spread: p99/median box size · resting: share of boxes that did not move",
    );
    ui.add_space(4.0);
    ui.label(RichText::new("last decisions").small().weak());
    for d in selector.decisions().iter().rev().take(DECISIONS_SHOWN) {
        let (word, c) = match d.kind {
            DecisionKind::Switch | DecisionKind::Forced => ("switch", color(index(d.to))),
            DecisionKind::Probe => ("probe", color(index(d.to))),
            DecisionKind::Sample => ("sample", color(index(d.to))),
            DecisionKind::Sampled => ("sampled", color(index(d.to))),
            DecisionKind::Measured => ("measured", color(index(d.to))),
            DecisionKind::Build => ("build beside", color(index(d.to))),
            DecisionKind::Reject => ("stay", Color32::from_gray(170)),
            DecisionKind::Abandon => ("abandon", Color32::from_gray(170)),
            DecisionKind::Free => ("free", Color32::from_gray(170)),
            DecisionKind::Initial => ("start", color(index(d.to))),
        };
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(format!("{:>6}", d.frame)).monospace().small().weak());
            ui.label(RichText::new(format!("{word} {}", d.to)).small().strong().color(c));
            ui.label(RichText::new(d.reason.to_string()).small());
        });
    }
}

/// The timeline strip: one column per step, coloured by the candidate that answered; a light tick on top
/// where a probe ran beside it.
fn strip(ui: &mut Ui, timeline: &Timeline) {
    let width = ui.available_width().clamp(200.0, 480.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 18.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_black_alpha(120));
    let column = rect.width() / TIMELINE_FRAMES as f32;
    // Runs of the same candidate are one rectangle each: a few shapes, not six hundred.
    let mut start = 0;
    let steps = &timeline.steps;
    let offset = TIMELINE_FRAMES - steps.len();
    for i in 1..=steps.len() {
        if i == steps.len() || steps[i].0 != steps[start].0 {
            let x0 = rect.left() + (offset + start) as f32 * column;
            let x1 = rect.left() + (offset + i) as f32 * column;
            let r = egui::Rect::from_min_max(egui::pos2(x0, rect.top() + 4.0), egui::pos2(x1, rect.bottom()));
            painter.rect_filled(r, 0.0, color(usize::from(steps[start].0)));
            start = i;
        }
    }
    for (i, &(_, beside)) in steps.iter().enumerate() {
        if let Some(tick) = beside.tick() {
            let x = rect.left() + (offset + i) as f32 * column;
            painter.vline(x, rect.top()..=rect.top() + 3.0, egui::Stroke::new(column.max(1.0), tick));
        }
    }
}

/// Each candidate's predicted cost as a horizontal bar (the active one's is its measured median), on a log
/// scale so that a 40× slower candidate still fits beside the fast ones.
fn bars(ui: &mut Ui, selector: &Selector) {
    let reports: Vec<_> = selector.candidates().collect();
    let (lo, hi) = reports
        .iter()
        .map(|c| c.estimate.ms)
        .filter(|ms| ms.is_finite() && *ms > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), ms| (lo.min(ms), hi.max(ms)));
    let (lo, hi) = if lo < hi { (lo / 1.5, hi) } else { (lo / 2.0, lo.max(1e-6) * 2.0) };
    let width = ui.available_width().clamp(200.0, 480.0);
    for (i, c) in reports.iter().enumerate() {
        let (rect, response) = ui.allocate_exact_size(egui::vec2(width, 16.0), egui::Sense::hover());
        let painter = ui.painter_at(rect);
        let label_w = 96.0;
        let frac =
            if c.estimate.ms > 0.0 { ((c.estimate.ms / lo).ln() / (hi / lo).ln()).clamp(0.02, 1.0) } else { 0.0 };
        let bar = egui::Rect::from_min_size(
            egui::pos2(rect.left() + label_w, rect.top() + 2.0),
            egui::vec2((rect.width() - label_w - 70.0) * frac as f32, rect.height() - 4.0),
        );
        let mut fill = color(i);
        if !c.active {
            fill = fill.gamma_multiply(0.55);
        }
        painter.rect_filled(bar, 2.0, fill);
        let name = if c.active { format!("▶ {}", c.name) } else { c.name.to_owned() };
        painter.text(
            rect.left_center(),
            egui::Align2::LEFT_CENTER,
            name,
            egui::FontId::proportional(12.0),
            Color32::from_gray(230),
        );
        painter.text(
            egui::pos2(bar.right() + 4.0, rect.center().y),
            egui::Align2::LEFT_CENTER,
            format!("{:.2}{}{}", c.estimate.ms, doubt(c), build(c)),
            egui::FontId::monospace(11.0),
            Color32::from_gray(210),
        );
        response.on_hover_text(format!(
            "{}: {:.3} ms ×/÷ {:.2}; a switch to it is charged a {:.2} ms build; active {} frames ({:.0} ms), {} \
             probes ({:.0} ms){}",
            c.name,
            c.estimate.ms,
            c.estimate.sigma.exp(),
            c.build_ms,
            c.frames,
            c.ms,
            c.probes,
            c.probe_ms,
            if c.held { "" } else { "; holds no memory" }
        ));
    }
}

/// The mark of an estimate's doubt: `?` for the prior alone, `≈` for a sampled or aged measurement, nothing for
/// one measured on whole frames lately (or the active candidate's own frames).
fn doubt(c: &CandidateReport) -> &'static str {
    if c.active || (c.estimate.measured && c.estimate.sigma <= 0.15) {
        ""
    } else if c.estimate.measured {
        " ≈"
    } else {
        " ?"
    }
}

/// The build a switch to `c` is charged, when it is not running already.
fn build(c: &CandidateReport) -> String {
    if c.active || c.probing { String::new() } else { format!(" +{:.1}", c.build_ms) }
}

#[cfg(test)]
mod tests;
