//! The lab's report: a self-contained HTML page (no scripts, no network, no
//! other file needed: the charts are inline SVG) opening with a verdict
//! table, then, per algorithm, a histogram of the order counts against the
//! expected line and a position heat map, also as SVG and PNG files.
//!
//! The report is built in memory ([`build_report`]: file names and their
//! bytes); writing it is the caller's (`knuffle lab --report DIR` writes
//! each file by knuffle's one rule for files it writes, the page last).
//!
//! PNG text is drawn with DejaVu Sans, shipped in this crate (`fonts/`,
//! Bitstream Vera licence), so no system font library is needed.

use std::fmt::Write as _;
use std::io;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::{RangedCoordf64, RangedCoordi32};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::format_p;
use crate::experiment::{LabRun, table};
use crate::perm;

static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

/// The histogram is drawn when `n!` is at most this.
pub const MAX_HISTOGRAM_ORDERS: usize = 720;

const HIST_SIZE: (u32, u32) = (900, 380);
const HEAT_SIZE: (u32, u32) = (560, 500);

pub(crate) fn register_font() {
    REGISTER.call_once(|| {
        // The bytes are a valid TrueType font shipped with the crate.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// The page's file name.
pub const INDEX: &str = "index.html";

/// One file of a report: its name (in the report's directory) and bytes.
pub struct ReportFile {
    /// The file name, e.g. `naive-swap-histogram.png`.
    pub name: String,
    /// The content.
    pub bytes: Vec<u8>,
}

/// A report: the chart files, then the page ([`INDEX`]) last, so a
/// caller writing them in order puts the page in place only when
/// everything it links to is there.
pub struct Report {
    /// The files, the page last.
    pub files: Vec<ReportFile>,
}

impl Report {
    /// The file named `name`.
    pub fn file(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.bytes.as_slice())
    }
}

fn other<E: std::fmt::Display>(e: E) -> io::Error {
    io::Error::other(e.to_string())
}

/// Builds `<algorithm>-histogram.{svg,png}` and
/// `<algorithm>-positions.{svg,png}` for each run, then [`INDEX`]. The
/// page embeds every chart as inline SVG, so it shows everything on its
/// own (the files are for reuse; the page links them for download). A
/// verdict table opens the page, biased algorithms first, each row linking
/// to the algorithm's section. Errors are the charts' drawing or encoding
/// failures.
pub fn build_report(runs: &[LabRun]) -> io::Result<Report> {
    register_font();
    let mut files = Vec::new();
    let mut sections = String::new();
    for run in runs {
        let images = figures(&mut files, run)?;
        section(&mut sections, run, &images);
    }
    let page = page(runs, &sections);
    files.push(ReportFile {
        name: INDEX.to_owned(),
        bytes: page.into_bytes(),
    });
    Ok(Report { files })
}

/// Renders one run's charts (the order histogram when there are few enough
/// orders, then the position heat map) into `files`, and returns their
/// inline figures for the page.
fn figures(files: &mut Vec<ReportFile>, run: &LabRun) -> io::Result<String> {
    let name = run.algorithm.name();
    let mut images = String::new();
    if let Some(counts) = run
        .tally
        .order_counts()
        .filter(|c| c.len() <= MAX_HISTOGRAM_ORDERS)
    {
        let svg = format!("{name}-histogram.svg");
        let png = format!("{name}-histogram.png");
        let inline = render_both(
            files,
            &svg,
            &png,
            HIST_SIZE,
            &Picture::Histogram(run, counts),
        )?;
        let _ = write!(
            images,
            r#"<figure>{chart}<figcaption>Count of each order (bars) against the expected count m/n! (red line). Orange bars are more than 4 standard deviations away. Files: <a href="{svg}">SVG</a>, <a href="{png}">PNG</a></figcaption></figure>"#,
            chart = inline_svg(
                &inline,
                &format!("{name}: count of each order against the expected count")
            ),
        );
    }
    let svg = format!("{name}-positions.svg");
    let png = format!("{name}-positions.png");
    let inline = render_both(files, &svg, &png, HEAT_SIZE, &Picture::Heat(run))?;
    let _ = write!(
        images,
        r#"<figure>{chart}<figcaption>Where items end: row = original position (from), column = final position (to); red = more often than uniform, blue = less, white = as expected. Files: <a href="{svg}">SVG</a>, <a href="{png}">PNG</a></figcaption></figure>"#,
        chart = inline_svg(
            &inline,
            &format!(
                "{name}: position heat map, original position (from) against final position (to)"
            )
        ),
    );
    Ok(images)
}

/// Appends one run's section to `sections`: its verdict, description,
/// figures, test table and power statements.
fn section(sections: &mut String, run: &LabRun, images: &str) {
    let name = run.algorithm.name();
    let a = &run.analysis;
    let mut rows = String::new();
    for t in &a.tests {
        let _ = write!(
            rows,
            "<tr><td>{}</td><td>{}</td><td class=num>{:.2}</td><td class=num>{}</td><td class=num>{}</td><td class=num>{}</td></tr>",
            html(&t.name),
            html(&t.about),
            t.statistic,
            t.dof,
            format_p(t.p_value),
            format_p(t.adjusted_p)
        );
    }
    let verdict = if a.biased() { "biased" } else { "fair" };
    let power: String = a
        .power
        .iter()
        .map(|p| format!("<li>{}</li>", html(p)))
        .collect();
    let _ = write!(
        sections,
        r#"<section id="{name}"><h2>{name} <span class="verdict {verdict}">{verdict_text}</span></h2>
<p>{desc}<br><small>Source: {source}. Expected: {expected}. Sampling took {secs:.2} s ({rate:.0} shuffles/s).</small></p>
<div class=figs>{images}</div>
<table><tr><th>test</th><th>what</th><th>statistic</th><th>dof</th><th>p-value</th><th>Holm p</th></tr>{rows}</table>
<ul class=power>{power}</ul></section>
"#,
        verdict_text = verdict_text(a),
        desc = html(run.algorithm.description()),
        source = html(run.algorithm.source()),
        expected = run.algorithm.fairness().label(),
        secs = run.elapsed.as_secs_f64(),
        rate = run.rate(),
    );
}

/// The whole page: style, introduction, verdict table, text summary and
/// the sections.
fn page(runs: &[LabRun], sections: &str) -> String {
    let verdicts = verdict_table(runs);
    let summary = html(&table(runs));
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>knuffle bias lab report</title>
<style>
body {{ font-family: "DejaVu Sans", sans-serif; margin: 2em; color: #222; max-width: 1500px; }}
pre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 12px; }}
section {{ border-top: 1px solid #ccc; margin-top: 2em; }}
.figs {{ display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }}
figure {{ margin: 0; }} figcaption {{ font-size: 12px; max-width: 560px; color: #555; }}
figure svg {{ max-width: 100%; height: auto; }}
table {{ border-collapse: collapse; font-size: 13px; margin-top: 1em; }}
td, th {{ border: 1px solid #ddd; padding: 3px 8px; text-align: left; }} td.num {{ text-align: right; }}
.verdict {{ font-size: 60%; padding: 2px 8px; border-radius: 4px; color: white; vertical-align: middle; }}
.verdict.biased {{ background: #c0392b; }} .verdict.fair {{ background: #27ae60; }}
table.verdicts .verdict {{ font-size: 100%; }}
tr.biased {{ background: #fdecea; }} tr.fair {{ background: #eafaf1; }}
.power {{ font-size: 13px; color: #444; }}
</style></head><body>
<h1>knuffle bias lab</h1>
<p>Each algorithm shuffled the identity order many times; the tests compare the counts with a uniform shuffle. A verdict is "biased" when a test stays significant after Holm's correction. This page holds every chart itself; the SVG and PNG files beside it are copies for reuse.</p>
{verdicts}
<details><summary>Summary as text</summary><pre>{summary}</pre></details>
{sections}
</body></html>
"#
    )
}

/// "BIASED" or "no bias found" (with a caveat when too few shuffles ran).
fn verdict_text(a: &crate::analysis::Analysis) -> &'static str {
    if a.biased() {
        "BIASED"
    } else if a.too_few_to_clear() {
        "no bias found (too few shuffles to rule out the naive swap)"
    } else {
        "no bias found"
    }
}

/// The table that opens the page: one row per algorithm, biased ones
/// first (otherwise in run order), coloured by verdict, each linking to the
/// algorithm's section.
fn verdict_table(runs: &[LabRun]) -> String {
    let mut order: Vec<&LabRun> = runs.iter().collect();
    order.sort_by_key(|run| !run.analysis.biased());
    let mut rows = String::new();
    for run in order {
        let a = &run.analysis;
        let name = run.algorithm.name();
        let class = if a.biased() { "biased" } else { "fair" };
        let main = a
            .order_test()
            .or_else(|| a.tests.iter().find(|t| t.name.contains("positions")));
        let (test, p) = main.map_or(("-".to_string(), "-".to_string()), |t| {
            (html(&t.name), format_p(t.adjusted_p))
        });
        let _ = write!(
            rows,
            r##"<tr class="{class}"><td><a href="#{name}">{name}</a></td><td><span class="verdict {class}">{verdict}</span></td><td>{expected}</td><td>{test}</td><td class=num>{p}</td><td class=num>{min_p}</td></tr>"##,
            verdict = verdict_text(a),
            expected = run.algorithm.fairness().label(),
            min_p = format_p(a.min_adjusted_p()),
        );
    }
    format!(
        r#"<table class="verdicts"><tr><th>algorithm</th><th>verdict</th><th>expected</th><th>main test</th><th>its Holm p</th><th>smallest Holm p</th></tr>{rows}</table>"#
    )
}

/// An SVG document made ready to sit inside the HTML page: the namespace
/// declaration (implicit in HTML) dropped, a role and label added.
pub(crate) fn inline_svg(svg: &str, label: &str) -> String {
    let body = svg
        .replace(r#" xmlns="http://www.w3.org/2000/svg""#, "")
        .replace(r#" xmlns:xlink="http://www.w3.org/1999/xlink""#, "");
    let start = body.find("<svg").unwrap_or(0);
    format!(
        r#"<svg role="img" aria-label="{}"{}"#,
        html(label),
        &body[start + "<svg".len()..]
    )
}

pub(crate) fn html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A picture of one run.
enum Picture<'a> {
    Histogram(&'a LabRun, &'a [u64]),
    Heat(&'a LabRun),
}

fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    picture: &Picture<'_>,
) -> Result<(), String> {
    match picture {
        Picture::Histogram(run, counts) => histogram(area, run, counts),
        Picture::Heat(run) => heat_map(area, run),
    }
}

/// Draws the same picture as SVG and PNG, adds both to `files`; returns
/// the SVG text.
fn render_both(
    files: &mut Vec<ReportFile>,
    svg: &str,
    png: &str,
    size: (u32, u32),
    picture: &Picture<'_>,
) -> io::Result<String> {
    let mut text = String::new();
    {
        let area = SVGBackend::with_string(&mut text, size).into_drawing_area();
        draw(&area, picture).map_err(other)?;
        area.present().map_err(other)?;
    }
    files.push(ReportFile {
        name: svg.to_owned(),
        bytes: text.clone().into_bytes(),
    });
    let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
    {
        let area = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
        draw(&area, picture).map_err(other)?;
        area.present().map_err(other)?;
    }
    files.push(ReportFile {
        name: png.to_owned(),
        bytes: encode_png(&pixels, size).map_err(other)?,
    });
    Ok(text)
}

/// RGB pixels (8 bits per channel, rows top to bottom) as a PNG file.
fn encode_png(pixels: &[u8], (width, height): (u32, u32)) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(pixels)?;
    writer.finish()?;
    Ok(bytes)
}

fn order_label(n: usize, rank: usize) -> String {
    perm::unrank(n, rank as u64)
        .iter()
        .map(|x| (x + 1).to_string())
        .collect::<Vec<_>>()
        .join(if n <= 9 { "" } else { " " })
}

/// `1,000`: thousands separated.
pub(crate) fn thousands(x: u64) -> String {
    let digits = x.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    run: &LabRun,
    counts: &[u64],
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    area.fill(&WHITE).map_err(e)?;
    let n = run.tally.n();
    let m = run.tally.trials() as f64;
    let cells = counts.len();
    let p = 1.0 / cells as f64;
    let expected = m * p;
    let sd = (m * p * (1.0 - p)).sqrt();
    let top = counts
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .max(expected as u64) as f64
        * 1.15;
    let title = format!(
        "{}: count of each order (n = {n}, {} shuffles)",
        run.algorithm.name(),
        thousands(run.tally.trials())
    );
    let mut chart = histogram_axes(area, n, cells, top, title)?;
    histogram_bars(&mut chart, counts, expected, sd)?;
    expected_line_and_legend(&mut chart, cells, expected)
}

/// The histogram's chart: one segment per order, counts up to `top`.
type HistogramChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<SegmentedCoord<RangedCoordi32>, RangedCoordf64>>;

/// The histogram's chart with its caption and axes: each order written out
/// when there are at most 24, else its Lehmer rank.
fn histogram_axes<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    n: usize,
    cells: usize,
    top: f64,
    title: String,
) -> Result<HistogramChart<'a, DB>, String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let labels = cells <= 24;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d((0..cells as i32 - 1).into_segmented(), 0f64..top)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(if labels { cells } else { 12 })
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(r) if labels && (*r as usize) < cells => {
                order_label(n, *r as usize)
            }
            SegmentValue::CenterOf(r) if (*r as usize) < cells => r.to_string(),
            _ => String::new(),
        })
        .x_label_style(("sans-serif", 11))
        .y_label_formatter(&|y| thousands(*y as u64))
        .x_desc(if labels {
            "order: the final arrangement of items 1..n"
        } else {
            "order (Lehmer rank)"
        })
        .y_desc("count")
        .draw()
        .map_err(e)?;
    Ok(chart)
}

/// One bar per order, orange when more than 4 standard deviations from
/// the expected count, else blue.
fn histogram_bars<DB: DrawingBackend>(
    chart: &mut HistogramChart<'_, DB>,
    counts: &[u64],
    expected: f64,
    sd: f64,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    chart
        .draw_series(counts.iter().enumerate().map(|(i, &c)| {
            let off = ((c as f64) - expected).abs() > 4.0 * sd;
            let colour = if off {
                RGBColor(230, 126, 34)
            } else {
                RGBColor(70, 130, 180)
            };
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i as i32), 0.0),
                    (SegmentValue::Exact(i as i32 + 1), c as f64),
                ],
                colour.filled(),
            );
            bar.set_margin(0, 0, 3, 3);
            bar
        }))
        .map_err(e)?;
    Ok(())
}

/// The expected count m/n! as a red line across all orders, and the legend
/// explaining it and the orange bars.
fn expected_line_and_legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut HistogramChart<'a, DB>,
    cells: usize,
    expected: f64,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    chart
        .draw_series(LineSeries::new(
            [
                (SegmentValue::Exact(0), expected),
                (SegmentValue::Exact(cells as i32), expected),
            ],
            RED.stroke_width(2),
        ))
        .map_err(e)?
        .label(format!(
            "expected m/n! = {}",
            thousands(expected.round() as u64)
        ))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RED.stroke_width(2)));
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(SegmentValue::Exact(0), 0.0), (SegmentValue::Exact(0), 0.0)],
            RGBColor(230, 126, 34).filled(),
        )))
        .map_err(e)?
        .label("more than 4 s.d. from expected")
        .legend(|(x, y)| {
            Rectangle::new(
                [(x, y - 5), (x + 20, y + 5)],
                RGBColor(230, 126, 34).filled(),
            )
        });
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(e)?;
    Ok(())
}

/// Blue (below expected) - white - red (above), `t` in `-1..=1`.
pub(crate) fn diverging(t: f64) -> RGBColor {
    let t = t.clamp(-1.0, 1.0);
    let (r, g, b) = if t >= 0.0 {
        (178.0, 24.0, 43.0)
    } else {
        (33.0, 102.0, 172.0)
    };
    let a = t.abs();
    let mix = |c: f64| (255.0 + (c - 255.0) * a).round() as u8;
    RGBColor(mix(r), mix(g), mix(b))
}

fn heat_map<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, run: &LabRun) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    area.fill(&WHITE).map_err(e)?;
    let m = &run.analysis.positions;
    let trials = run.tally.trials();
    let dev = m.relative_deviation(trials);
    // Scale: the largest deviation, but at least 2% so that the sampling
    // noise of a fair shuffle stays white.
    let biggest = dev.iter().flatten().fold(0.0f64, |a, &d| a.max(d.abs()));
    let scale = biggest.max(0.02);
    let (plot, legend) = area.split_horizontally(HEAT_SIZE.0 - 90);
    let mut chart = heat_axes(&plot, run, &dev)?;
    heat_cells(&mut chart, &dev, scale)?;
    colour_bar(&legend, scale)
}

/// The heat map's chart: one segment per row and column of the matrix.
type HeatChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<SegmentedCoord<RangedCoordi32>, SegmentedCoord<RangedCoordi32>>,
>;

/// The heat map's chart on a segmented grid of the deviation matrix's
/// cells, with its caption and position labels (binned positions end in `+`).
fn heat_axes<'a, DB: DrawingBackend>(
    plot: &'a DrawingArea<DB, Shift>,
    run: &LabRun,
    dev: &[Vec<f64>],
) -> Result<HeatChart<'a, DB>, String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let m = &run.analysis.positions;
    let rows = dev.len();
    let cols = dev.first().map_or(0, Vec::len);
    let title = format!(
        "{}: where items end (n = {})",
        run.algorithm.name(),
        run.tally.n()
    );
    let binned = rows < run.tally.n();
    let mut chart = ChartBuilder::on(plot)
        .caption(title, ("sans-serif", 17))
        .margin(10)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (0..cols as i32 - 1).into_segmented(),
            (0..rows as i32 - 1).into_segmented(),
        )
        .map_err(e)?;
    let col_label = |c: usize| -> String {
        if m.has_rest_column && c + 1 == cols {
            "not dealt".into()
        } else if binned {
            format!("{}+", m.col_starts[c] + 1)
        } else {
            (m.col_starts[c] + 1).to_string()
        }
    };
    // Row r is drawn at y = rows - 1 - r, so the first item is on top.
    let row_label = |y: usize| -> String {
        let r = rows - 1 - y;
        if binned {
            format!("{}+", m.row_starts[r] + 1)
        } else {
            (m.row_starts[r] + 1).to_string()
        }
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(cols.min(16))
        .y_labels(rows.min(16))
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(c) if (*c as usize) < cols => col_label(*c as usize),
            _ => String::new(),
        })
        .y_label_formatter(&|y| match y {
            SegmentValue::CenterOf(r) if (*r as usize) < rows => row_label(*r as usize),
            _ => String::new(),
        })
        .x_desc("final position (to)")
        .y_desc("original position (from)")
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(e)?;
    Ok(chart)
}

/// One coloured cell per (from, to) pair, with its deviation written in
/// when the grid is at most 12x12.
fn heat_cells<DB: DrawingBackend>(
    chart: &mut HeatChart<'_, DB>,
    dev: &[Vec<f64>],
    scale: f64,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let rows = dev.len();
    let cols = dev.first().map_or(0, Vec::len);
    let cell = |c: usize, r: usize| {
        let y = (rows - 1 - r) as i32;
        [
            (SegmentValue::Exact(c as i32), SegmentValue::Exact(y)),
            (
                SegmentValue::Exact(c as i32 + 1),
                SegmentValue::Exact(y + 1),
            ),
        ]
    };
    chart
        .draw_series(dev.iter().enumerate().flat_map(|(r, line)| {
            line.iter()
                .enumerate()
                .map(move |(c, &d)| Rectangle::new(cell(c, r), diverging(d / scale).filled()))
        }))
        .map_err(e)?;
    if rows <= 12 && cols <= 12 {
        chart
            .draw_series(dev.iter().enumerate().flat_map(|(r, line)| {
                line.iter().enumerate().map(move |(c, &d)| {
                    let colour = if (d / scale).abs() > 0.6 {
                        WHITE
                    } else {
                        BLACK
                    };
                    Text::new(
                        format!("{:+.1}%", d * 100.0),
                        (
                            SegmentValue::CenterOf(c as i32),
                            SegmentValue::CenterOf((rows - 1 - r) as i32),
                        ),
                        ("sans-serif", 12)
                            .into_font()
                            .color(&colour)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    )
                })
            }))
            .map_err(e)?;
    }
    Ok(())
}

/// The heat map's colour bar: the diverging scale from `+scale` (top) to
/// `-scale` (bottom), labelled in percent against uniform.
pub(crate) fn colour_bar<DB: DrawingBackend>(
    legend: &DrawingArea<DB, Shift>,
    scale: f64,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let (w, h) = legend.dim_in_pixel();
    let bar_top = 60i32;
    let bar_bottom = h as i32 - 80;
    let steps = 100;
    for i in 0..steps {
        let t = 1.0 - 2.0 * i as f64 / (steps - 1) as f64;
        let y0 = bar_top + (bar_bottom - bar_top) * i / steps;
        let y1 = bar_top + (bar_bottom - bar_top) * (i + 1) / steps;
        legend
            .draw(&Rectangle::new([(15, y0), (35, y1)], diverging(t).filled()))
            .map_err(e)?;
    }
    legend
        .draw(&Rectangle::new(
            [(15, bar_top), (35, bar_bottom)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
    let style = ("sans-serif", 11).into_font();
    for (t, y) in [
        (1.0, bar_top),
        (0.0, (bar_top + bar_bottom) / 2),
        (-1.0, bar_bottom),
    ] {
        legend
            .draw(&Text::new(
                format!("{:+.1}%", t * scale * 100.0),
                (40, y - 6),
                style.clone(),
            ))
            .map_err(e)?;
    }
    legend
        .draw(&Text::new(
            "vs uniform",
            (8, bar_bottom + 14),
            style.clone(),
        ))
        .map_err(e)?;
    let _ = w;
    Ok(())
}
