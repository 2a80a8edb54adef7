//! The HTML page of a one-long-order audit ([`crate::order_audit`]): the
//! verdict, the likely causes, the tests, a heat map of position against
//! row number and the displacement histogram against the uniform law. One
//! self-contained file (inline SVG, no script, no network), drawn with the
//! lab report's font, colours and colour bar ([`crate::report`]).

use std::fmt::Write as _;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::analysis::format_p;
use crate::order_audit::OrderAudit;

use crate::order_laws::cells_below;
use crate::order_scan::OrderCounts;
use crate::report::{colour_bar, diverging, html, inline_svg, register_font, thousands};

const HEAT_SIZE: (u32, u32) = (620, 540);
const HIST_SIZE: (u32, u32) = (820, 400);
/// The histogram shows at most this many bars.
const HISTOGRAM_BARS: usize = 64;

/// The page, as text. Errors are the charts' drawing failures.
pub fn order_report_html(audit: &OrderAudit) -> Result<String, String> {
    register_font();
    let mut figures = String::new();
    if let Some(counts) = &audit.counts {
        let heat = svg(HEAT_SIZE, |area| heat_map(area, counts))?;
        let hist = svg(HIST_SIZE, |area| histogram(area, counts))?;
        let _ = write!(
            figures,
            "<div class=figs><figure>{}<figcaption>Where the rows went: each cell counts the rows of a \
             range of row numbers (up) placed in a range of positions (across), against a \
             uniform shuffle's expected count (white). A fair shuffle is pale noise; a red \
             diagonal is a shuffle that moves rows only a little way.</figcaption></figure>\
             <figure>{}<figcaption>How far rows moved, |position - row|, against the exact law of \
             a uniform shuffle (red).</figcaption></figure></div>",
            inline_svg(&heat, "heat map of position against row number"),
            inline_svg(&hist, "displacement histogram against the uniform law"),
        );
    }
    let mut rows = String::new();
    for t in &audit.tests {
        let class = if t.adjusted_p < audit.alpha {
            " class=biased"
        } else {
            ""
        };
        let _ = write!(
            rows,
            "<tr{class}><td>{}</td><td>{}</td><td class=num>{:.2}</td><td class=num>{}</td><td class=num>{}</td><td class=num>{}</td></tr>",
            html(&t.name),
            html(&t.about),
            t.statistic,
            if t.dof > 0.0 {
                t.dof.to_string()
            } else {
                "-".into()
            },
            format_p(t.p_value),
            format_p(t.adjusted_p)
        );
    }
    let causes: String = audit
        .causes
        .iter()
        .map(|c| format!("<li>{}</li>", html(c)))
        .collect();
    let class = if audit.biased() { "biased" } else { "fair" };
    Ok(format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>knuffle audit of one order</title>
<style>
body {{ font-family: "DejaVu Sans", sans-serif; margin: 2em; color: #222; max-width: 1500px; }}
pre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 12px; }}
.figs {{ display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }}
figure {{ margin: 0; }} figcaption {{ font-size: 12px; max-width: 600px; color: #555; }}
figure svg {{ max-width: 100%; height: auto; }}
table {{ border-collapse: collapse; font-size: 13px; margin-top: 1em; }}
td, th {{ border: 1px solid #ddd; padding: 3px 8px; text-align: left; }} td.num {{ text-align: right; }}
.verdict {{ padding: 2px 8px; border-radius: 4px; color: white; }}
.verdict.biased {{ background: #c0392b; }} .verdict.fair {{ background: #27ae60; }}
tr.biased {{ background: #fdecea; }}
</style></head><body>
<h1>Is this order a fair shuffle?</h1>
<p>One order of n = {n} rows, tested against an exactly uniform permutation: <span class="verdict {class}">{verdict}</span> (family-wise alpha = {alpha}, Holm's correction).</p>
<ul>{causes}</ul>
{figures}
<table><tr><th>test</th><th>what</th><th>statistic</th><th>dof</th><th>p-value</th><th>Holm p</th></tr>{rows}</table>
<details><summary>Report as text</summary><pre>{text}</pre></details>
</body></html>
"#,
        n = thousands(audit.n),
        verdict = audit.verdict(),
        alpha = audit.alpha,
        text = html(&audit.to_text()),
    ))
}

fn svg(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>,
) -> Result<String, String> {
    let mut text = String::new();
    {
        let area = SVGBackend::with_string(&mut text, size).into_drawing_area();
        draw(&area)?;
        area.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

/// The rows (or positions) in grid bin `b`.
fn bin_size(counts: &OrderCounts, b: usize) -> u64 {
    let lo = (b as u64) << counts.grid_shift;
    (((b as u64 + 1) << counts.grid_shift).min(counts.n)).saturating_sub(lo)
}

/// Heat map: the grid's relative deviation from a uniform shuffle's
/// expected counts, on the lab report's diverging scale (at least 50%, so a
/// fair shuffle's noise stays pale).
fn heat_map(area: &DrawingArea<SVGBackend<'_>, Shift>, counts: &OrderCounts) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<_>| x.to_string();
    area.fill(&WHITE).map_err(e)?;
    let side = counts.grid_side;
    let n = counts.n as f64;
    let dev: Vec<f64> = (0..side * side)
        .map(|i| {
            let expected =
                bin_size(counts, i / side) as f64 * bin_size(counts, i % side) as f64 / n;
            if expected > 0.0 {
                counts.grid[i] as f64 / expected - 1.0
            } else {
                0.0
            }
        })
        .collect();
    let scale = dev.iter().fold(0.5f64, |a, &d| a.max(d.abs()));
    let (plot, legend) = area.split_horizontally(HEAT_SIZE.0 - 90);
    let mut chart = ChartBuilder::on(&plot)
        .caption(
            format!("position against row number (n = {})", thousands(counts.n)),
            ("sans-serif", 17),
        )
        .margin(10)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..n, 0f64..n)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("position in the order")
        .y_desc("row number")
        .x_label_formatter(&|x| thousands(*x as u64))
        .y_label_formatter(&|y| thousands(*y as u64))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(e)?;
    let width = (1u64 << counts.grid_shift) as f64;
    chart
        .draw_series((0..side * side).map(|i| {
            let (r, c) = ((i / side) as f64, (i % side) as f64);
            Rectangle::new(
                [
                    (c * width, r * width),
                    (((c + 1.0) * width).min(n), ((r + 1.0) * width).min(n)),
                ],
                diverging(dev[i] / scale).filled(),
            )
        }))
        .map_err(e)?;
    colour_bar(&legend, scale)
}

/// The displacement histogram (fine bins grouped into at most
/// [`HISTOGRAM_BARS`] bars) with the expected counts of the exact law.
fn histogram(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    counts: &OrderCounts,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<_>| x.to_string();
    area.fill(&WHITE).map_err(e)?;
    let n = counts.n;
    let per = counts.displacement.len().div_ceil(HISTOGRAM_BARS);
    let width = per as u64 * (1u64 << counts.displacement_shift);
    let bars: Vec<(u64, u64, u64, f64)> = counts
        .displacement
        .chunks(per)
        .enumerate()
        .map(|(b, chunk)| {
            let lo = b as u64 * width;
            let hi = (lo + width).min(n);
            let expected = (cells_below(n, hi) - cells_below(n, lo)) as f64 / n as f64;
            (lo, hi, chunk.iter().sum(), expected)
        })
        .collect();
    let top = bars
        .iter()
        .map(|b| (b.2 as f64).max(b.3))
        .fold(1.0f64, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption("how far rows moved", ("sans-serif", 17))
        .margin(10)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..n as f64, 0f64..top)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("|position - row|")
        .y_desc("rows")
        .x_label_formatter(&|x| thousands(*x as u64))
        .y_label_formatter(&|y| thousands(*y as u64))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(bars.iter().map(|&(lo, hi, c, _)| {
            Rectangle::new(
                [(lo as f64, 0.0), (hi as f64, c as f64)],
                RGBColor(70, 130, 180).filled(),
            )
        }))
        .map_err(e)?
        .label("this order")
        .legend(|(x, y)| {
            Rectangle::new(
                [(x, y - 5), (x + 20, y + 5)],
                RGBColor(70, 130, 180).filled(),
            )
        });
    chart
        .draw_series(LineSeries::new(
            bars.iter()
                .flat_map(|&(lo, hi, _, ex)| [(lo as f64, ex), (hi as f64, ex)]),
            RED.stroke_width(2),
        ))
        .map_err(e)?
        .label("uniform shuffle: (2 - [d = 0])(n - d)/n per row")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RED.stroke_width(2)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order_audit::{OrderAuditInput, audit_order};

    #[test]
    fn the_page_holds_the_verdict_and_both_pictures() {
        let order: Vec<u64> = (0..5000).map(|i| i ^ 1).collect();
        let audit = audit_order(&OrderAuditInput::new(&order, 5000)).unwrap();
        let page = order_report_html(&audit).unwrap();
        assert!(page.contains("biased"), "{page}");
        assert!(page.contains(r#"aria-label="heat map of position against row number""#));
        assert!(page.contains(r#"aria-label="displacement histogram against the uniform law""#));
        assert_eq!(page.matches("<svg").count(), 2);
    }
}
