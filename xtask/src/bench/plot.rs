//! Line charts as PNG: plotters' bitmap backend, text by ab_glyph with DejaVu Sans from the `dejavu` crate (no
//! system font or fontconfig needed), PNG encoding by the `png` crate.
//!
//! A [`Chart`] is data only — title, axis labels with units, series, reference lines, log axes — so the studies
//! say what to show and this file alone knows how to draw it. Several charts in one file stack vertically.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// The font family name registered for all text.
const FONT: &str = "sans-serif";
/// Pixel width of every image.
const WIDTH: u32 = 1400;
/// Pixel height of one chart.
const HEIGHT: u32 = 820;

/// Colours for series without their own, distinguishable on white.
pub const PALETTE: [RGBColor; 14] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 128),
    RGBColor(128, 0, 64),
    RGBColor(0, 110, 90),
    RGBColor(90, 60, 0),
];
/// The thesis's colours for its reference lines: linear green, 60 fps yellow, 30 fps red.
pub const LINEAR: RGBColor = RGBColor(0, 150, 0);
/// 60 fps line (a darker yellow, readable on white).
pub const FPS60: RGBColor = RGBColor(215, 170, 0);
/// 30 fps line.
pub const FPS30: RGBColor = RGBColor(220, 0, 0);
/// Secondary statistics (p95) drawn beside a mean.
pub const P95: RGBColor = RGBColor(120, 120, 120);
/// Reference series (the seed program, the memory floor).
pub const REFERENCE: RGBColor = RGBColor(0, 0, 0);

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A solid line with a dot at every point.
    Line,
    /// A dashed line (reference lines).
    Dashed,
    /// A dashed line with hollow squares at the points (reference series such as the seed program's figures).
    Reference,
    /// Dots only, no line (scatter plots: predicted against measured).
    Points,
    /// Horizontal bars: each point `(value, k)` a bar from x = 0 to `value` in row k = 0, 1, 2, … (rows named by
    /// [`Chart::bar_names`], written after each bar).
    Bars,
}

/// One named line.
#[derive(Clone, Debug)]
pub struct Series {
    /// The legend text.
    pub label: String,
    /// `(x, y)` points, in x order.
    pub points: Vec<(f64, f64)>,
    /// How to draw it.
    pub style: Style,
    /// Its colour; `None` takes the next palette colour.
    pub color: Option<RGBColor>,
}

impl Series {
    /// A solid series in the next palette colour.
    #[must_use]
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self { label: label.into(), points, style: Style::Line, color: None }
    }

    /// A series in `style` and `color`.
    #[must_use]
    pub fn styled(label: impl Into<String>, points: Vec<(f64, f64)>, style: Style, color: RGBColor) -> Self {
        Self { label: label.into(), points, style, color: Some(color) }
    }
}

/// One chart.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    /// The title (what, where, how measured).
    pub title: String,
    /// The x axis label, with its unit.
    pub x_label: String,
    /// The y axis label, with its unit.
    pub y_label: String,
    /// Logarithmic x axis (counts spanning decades).
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// Base of a logarithmic x axis (10 unless set; 2 for leaf sizes).
    pub x_base: Option<f64>,
    /// The lines.
    pub series: Vec<Series>,
    /// Coloured spans along the bottom of the chart (which candidate was active when), each coloured like the
    /// series of the same label, or from the palette when none has it.
    pub bands: Vec<Band>,
    /// For bar charts: the name of each row y = 0, 1, 2, …, written after its bar (the y axis then shows no
    /// numbers).
    pub bar_names: Vec<String>,
}

/// A labelled span of x, drawn as a coloured strip along the bottom of the chart.
#[derive(Clone, Debug)]
pub struct Band {
    /// Where it starts.
    pub from: f64,
    /// Where it ends.
    pub to: f64,
    /// What it stands for (a series label to take the colour of).
    pub label: String,
}

impl Chart {
    /// A chart with a title and axis labels, linear axes, no series yet.
    #[must_use]
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> Self {
        Self { title: title.into(), x_label: x_label.into(), y_label: y_label.into(), ..Self::default() }
    }

    /// Logarithmic axes.
    #[must_use]
    pub fn log(mut self, x: bool, y: bool) -> Self {
        (self.log_x, self.log_y) = (x, y);
        self
    }

    /// Add the thesis's reference lines for relative dt: 60 fps (1) and 30 fps (2) across `x_range`, and the
    /// line through the origin and the first point of `first` (the "linear from the first point" line).
    /// The lines span `x_range` widened to every point already on the chart.
    pub fn add_fps_lines(&mut self, x_range: (f64, f64), first: Option<(f64, f64)>) {
        let x_range = self
            .series
            .iter()
            .flat_map(|s| &s.points)
            .filter(|p| usable(p.0, self.log_x))
            .fold(x_range, |(lo, hi), &(x, _)| (lo.min(x), hi.max(x)));
        if let Some((x0, y0)) = first.filter(|&(x, y)| x > 0.0 && y > 0.0) {
            let k = y0 / x0;
            let pts = vec![(x_range.0, k * x_range.0), (x_range.1, k * x_range.1)];
            self.series.push(Series::styled("linear from the first point", pts, Style::Dashed, LINEAR));
        }
        let (a, b) = x_range;
        self.series.push(Series::styled("60 fps (relative dt 1)", vec![(a, 1.0), (b, 1.0)], Style::Dashed, FPS60));
        self.series.push(Series::styled("30 fps (relative dt 2)", vec![(a, 2.0), (b, 2.0)], Style::Dashed, FPS30));
    }
}

/// Register DejaVu Sans as the font of every chart. Call once before drawing.
pub fn register_font() -> Result<(), String> {
    plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "cannot load the DejaVu Sans font".to_owned())?;
    plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold())
        .map_err(|_| "cannot load the DejaVu Sans Bold font".to_owned())
}

/// Draw `charts` stacked vertically into the PNG at `path`.
pub fn draw(path: &Path, charts: &[Chart]) -> Result<(), String> {
    let height = HEIGHT * charts.len().max(1) as u32;
    let mut buffer = vec![255u8; (WIDTH * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let areas = root.split_evenly((charts.len().max(1), 1));
        for (area, chart) in areas.iter().zip(charts) {
            draw_chart(area, chart).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    write_png(path, WIDTH, height, &buffer)
}

/// Encode an RGB8 buffer as PNG.
fn write_png(path: &Path, width: u32, height: u32, rgb: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn draw_chart(area: &Area<'_>, chart: &Chart) -> Result<(), String> {
    let Some(((x0, x1), (y0, y1))) = data_ranges(chart) else {
        let style = TextStyle::from((FONT, 26).into_font()).color(&BLACK);
        area.draw_text(&format!("{} — no data", chart.title), &style, (40, 40)).map_err(|e| e.to_string())?;
        return Ok(());
    };
    let bars = chart.series.iter().any(|s| s.style == Style::Bars);
    // Bars start at 0, with room after them for their names; the rows are spaced by one.
    let (x0, x1) = if bars { (0.0, x1 * 1.4) } else { pad(x0, x1, chart.log_x, 1.15) };
    let (y0, y1) = if bars { (y0.min(0.0) - 0.6, y1 + 0.6 + 1.5) } else { pad(y0, y1, chart.log_y, 1.6) };
    // The bands' strip: the bottom 4% of the plot, in data coordinates.
    let strip = if chart.log_y { (y0, y0 * (y1 / y0).powf(0.04)) } else { (y0, y0 + (y1 - y0) * 0.04) };
    let base = chart.x_base.unwrap_or(10.0);
    match (chart.log_x, chart.log_y) {
        (false, false) => draw_in(area, chart, x0..x1, y0..y1, strip),
        (true, false) => draw_in(area, chart, (x0..x1).log_scale().base(base), y0..y1, strip),
        (false, true) => draw_in(area, chart, x0..x1, (y0..y1).log_scale(), strip),
        (true, true) => draw_in(area, chart, (x0..x1).log_scale().base(base), (y0..y1).log_scale(), strip),
    }
}

fn draw_in<X, Y>(area: &Area<'_>, chart: &Chart, x: X, y: Y, strip: (f64, f64)) -> Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<_>| e.to_string();
    let mut ctx = ChartBuilder::on(area)
        .caption(&chart.title, (FONT, 26).into_font().style(FontStyle::Bold))
        .margin(18)
        .x_label_area_size(64)
        .y_label_area_size(96)
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .axis_desc_style((FONT, 22))
        .label_style((FONT, 17))
        .x_labels(if chart.log_x { 8 } else { 12 })
        .y_labels(if chart.log_y { 8 } else { 12 })
        .x_label_formatter(&|v| number(*v))
        .y_label_formatter(&|v| if chart.bar_names.is_empty() { number(*v) } else { String::new() })
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
        .draw()
        .map_err(err)?;
    let mut next = 0;
    let mut band_colors: Vec<(String, RGBColor)> = Vec::new();
    for s in &chart.series {
        let points: Vec<(f64, f64)> =
            s.points.iter().copied().filter(|&(x, y)| usable(x, chart.log_x) && usable(y, chart.log_y)).collect();
        if points.is_empty() {
            continue;
        }
        let color = s.color.unwrap_or_else(|| {
            next += 1;
            PALETTE[(next - 1) % PALETTE.len()]
        });
        band_colors.push((s.label.clone(), color));
        let dense = points.len() > 60;
        match s.style {
            Style::Line => {
                let anno = ctx.draw_series(LineSeries::new(points.clone(), color.stroke_width(3))).map_err(err)?;
                anno.label(&s.label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 28, y)], color.stroke_width(3)));
                if !dense {
                    ctx.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled()))).map_err(err)?;
                }
            }
            Style::Bars => {
                let anno = ctx
                    .draw_series(
                        points.iter().map(|&(x, y)| Rectangle::new([(0.0, y - 0.35), (x, y + 0.35)], color.filled())),
                    )
                    .map_err(err)?;
                anno.label(&s.label)
                    .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 20, y + 6)], color.filled()));
                let style =
                    TextStyle::from((FONT, 17).into_font()).color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
                let names = points.iter().filter_map(|&(x, y)| {
                    let name = chart.bar_names.get(y.round() as usize)?;
                    Some(Text::new(format!(" {name}"), (x, y), style.clone()))
                });
                ctx.draw_series(names).map_err(err)?;
            }
            Style::Points => {
                let anno = ctx.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(err)?;
                anno.label(&s.label).legend(move |(x, y)| Circle::new((x + 14, y), 4, color.filled()));
            }
            Style::Dashed | Style::Reference => {
                let anno = ctx
                    .draw_series(DashedLineSeries::new(points.clone(), 10, 6, color.stroke_width(2)))
                    .map_err(err)?;
                let cross = if s.style == Style::Reference { 6 } else { 0 };
                anno.label(&s.label).legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (28, 0)], color.stroke_width(2))
                        + Cross::new((14, 0), cross, color.stroke_width(2))
                });
                if cross > 0 {
                    ctx.draw_series(points.iter().map(|&p| Cross::new(p, cross, color.stroke_width(2))))
                        .map_err(err)?;
                }
            }
        }
    }
    for band in &chart.bands {
        let color = match band_colors.iter().find(|(label, _)| *label == band.label) {
            Some(&(_, c)) => c,
            None => {
                next += 1;
                let c = PALETTE[(next - 1) % PALETTE.len()];
                band_colors.push((band.label.clone(), c));
                // A band without a line of its own gets a legend entry, so that its colour can be read.
                ctx.draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
                    .map_err(err)?
                    .label(format!("{} (band)", band.label))
                    .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 20, y + 6)], c.filled()));
                c
            }
        };
        ctx.draw_series(std::iter::once(Rectangle::new([(band.from, strip.0), (band.to, strip.1)], color.filled())))
            .map_err(err)?;
    }
    ctx.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, 17))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    Ok(())
}

/// A value the axis can show: finite, and positive on a log axis.
fn usable(v: f64, log: bool) -> bool {
    v.is_finite() && (!log || v > 0.0)
}

/// The x and y extent of every usable point, or `None` when there is none.
fn data_ranges(chart: &Chart) -> Option<((f64, f64), (f64, f64))> {
    let mut r: Option<((f64, f64), (f64, f64))> = None;
    for &(x, y) in chart.series.iter().flat_map(|s| &s.points) {
        if !usable(x, chart.log_x) || !usable(y, chart.log_y) {
            continue;
        }
        r = Some(match r {
            None => ((x, x), (y, y)),
            Some(((a, b), (c, d))) => ((a.min(x), b.max(x)), (c.min(y), d.max(y))),
        });
    }
    r
}

/// Widen `lo..hi` a little (by a factor on log axes), never to zero width; linear ranges of positive data
/// start at 0.
fn pad(lo: f64, hi: f64, log: bool, factor: f64) -> (f64, f64) {
    if log {
        let (lo, hi) = if hi / lo < 1.01 { (lo / 2.0, hi * 2.0) } else { (lo, hi) };
        (lo / factor, hi * factor)
    } else {
        let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
        let lo = if lo >= 0.0 && lo < span { 0.0 } else { lo - span * 0.05 };
        (lo, hi + span * 0.08)
    }
}

/// A tick label: `100k`, `2.5M`, `0.05`, `12`, `1.5e-5`.
#[must_use]
pub fn number(v: f64) -> String {
    let a = v.abs();
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
    if a == 0.0 {
        "0".into()
    } else if a >= 1e9 {
        trim(format!("{:.2}", v / 1e9)) + "G"
    } else if a >= 1e6 {
        trim(format!("{:.2}", v / 1e6)) + "M"
    } else if a >= 1e4 {
        trim(format!("{:.1}", v / 1e3)) + "k"
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1e-3 {
        trim(format!("{v:.3}"))
    } else {
        format!("{v:.1e}")
    }
}

#[cfg(test)]
mod tests;
