//! Figures of graph Chomp's results, drawn from the files `chomp3 graph` writes (read by `graph::summary`):
//! the `--summary` table (values of every graph on `n` vertices) and a `--tsv
//! --cost` table of wheels (time and memo per wheel).

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Canvas, DrawResult, FONT, Figure, Format, Made, PlotError, SIZE, TITLE_HEIGHT, axis};
use crate::base::lines::{BadLine, data_lines};
use crate::graph::summary::Summary;

/// One wheel of a `--tsv --cost` file.
#[derive(Clone, Debug, PartialEq)]
pub struct WheelCost {
    /// Rim vertices (`W_n`).
    pub n: usize,
    /// Positions in the memo after solving it from an empty memo.
    pub memo: u64,
    /// Seconds it took.
    pub seconds: f64,
}

/// Reads the wheels of a `chomp3 graph --tsv --cost` file.
pub fn read_wheel_costs(text: &str) -> Result<Vec<WheelCost>, BadLine> {
    let mut out = Vec::new();
    for (i, cols) in data_lines(text, "source") {
        let bad = || BadLine {
            line: i,
            what: "a cost table of wheels",
        };
        let n = cols[0]
            .strip_prefix("wheel:")
            .and_then(|n| n.parse().ok())
            .ok_or_else(bad)?;
        let memo = cols.get(4).and_then(|c| c.parse().ok()).ok_or_else(bad)?;
        let seconds = cols.get(5).and_then(|c| c.parse().ok()).ok_or_else(bad)?;
        out.push(WheelCost { n, memo, seconds });
    }
    Ok(out)
}

/// Draws `graph-values` and `wheels` into `dir`, by `command`; returns the
/// files written. The record (figures.tsv) says what each holds: the most
/// vertices, the number of graphs summarised and of their sizes, the largest
/// wheel and the number of wheels.
pub fn plot_graphs(
    values: &Summary,
    wheels: &[WheelCost],
    dir: &Path,
    format: Format,
    command: String,
    replace: bool,
) -> Result<Vec<PathBuf>, PlotError> {
    // Sizes and wheels counted once each: a file that lists one twice holds
    // no more than one that lists it once.
    let most = values.by_n.keys().max().map_or(0, |&n| n as u64);
    let graphs = values.by_n.values().map(|c| c.graphs).sum();
    let mut of_values = Made::new("graphs", most, command.clone())
        .with("graphs", graphs)
        .with("sizes", values.by_n.len() as u64);
    // Which sizes (up to the 64 vertices a graph may have) and wheels (each
    // below 64 vertices), one bit each; both words of the sizes always, so
    // that a source without a graph of 64 vertices is told from one with.
    if let Some([low, high]) = super::record::sets_of(values.by_n.keys().map(|&n| n as u64)) {
        of_values = of_values.with("size set", low).with("size set high", high);
    }
    let largest = wheels.iter().map(|w| w.n as u64).max().unwrap_or(0);
    let distinct: std::collections::BTreeSet<usize> = wheels.iter().map(|w| w.n).collect();
    let mut of_wheels = Made::new("graphs", largest, command).with("wheels", distinct.len() as u64);
    if let Some(set) = super::record::set_of(distinct.iter().map(|&n| n as u64)) {
        of_wheels = of_wheels.with("wheel set", set);
    }
    let figures = [
        (<ValuesFigure as Figure>::NAME, of_values.clone()),
        (<WheelsFigure as Figure>::NAME, of_wheels.clone()),
    ];
    let mut c = Canvas::open(dir, format, replace, &figures)?;
    let written = vec![
        c.render(&ValuesFigure(values), &of_values)?,
        c.render(&WheelsFigure(wheels), &of_wheels)?,
    ];
    c.commit()?;
    Ok(written)
}

/// The share of each value among the graphs on `n` vertices.
struct ValuesFigure<'a>(&'a Summary);

impl Figure for ValuesFigure<'_> {
    const NAME: &'static str = "graph-values";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        value_bars(root, self.0)
    }
}

/// Time and memo size per wheel.
struct WheelsFigure<'a>(&'a [WheelCost]);

impl Figure for WheelsFigure<'_> {
    const NAME: &'static str = "wheels";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        wheel_costs(root, self.0)
    }
}

/// Clears the figure, writes its title, and returns the area below the title.
fn titled_body<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
) -> Result<DrawingArea<DB, Shift>, PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (top, body) = root.split_vertically(TITLE_HEIGHT);
    top.titled(title, (FONT, 26))?;
    Ok(body)
}

/// Values at or above this share one colour.
const TOP_VALUE: u32 = 12;

fn value_colour(v: u32) -> RGBColor {
    if v == 0 {
        return RGBColor(30, 30, 30);
    }
    let hue = (v.min(TOP_VALUE) - 1) as f64 / TOP_VALUE as f64 * 0.85;
    let rgb = HSLColor(hue, 0.65, 0.55).to_rgba();
    RGBColor(rgb.0, rgb.1, rgb.2)
}

/// For each `n`, a bar split by the share of graphs of each value.
fn value_bars<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, summary: &Summary) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let body = titled_body(
        &root,
        "Graph Chomp: nim-values of all graphs on n vertices (share of graphs)",
    )?;
    let max_n = summary.by_n.keys().copied().max().unwrap_or(1);
    let mut chart = ChartBuilder::on(&body)
        .margin(20)
        .margin_right(200)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..max_n as f64 + 0.5, 0f64..1f64)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(max_n)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("vertices n")
        .y_desc("share of the graphs on n vertices")
        .label_style((FONT, 18))
        .draw()?;
    for (&n, counts) in &summary.by_n {
        let total: u64 = counts.values.values().sum();
        let mut low = 0.0;
        for (&v, &c) in &counts.values {
            let high = low + c as f64 / total as f64;
            let x = n as f64;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.4, low), (x + 0.4, high)],
                value_colour(v).filled(),
            )))?;
            low = high;
        }
    }
    let legend = body.margin(60, 60, 0, 20);
    let (w, _) = legend.dim_in_pixel();
    for v in 0..=TOP_VALUE {
        let y = 10 + 28 * v.cast_signed();
        let x = w.cast_signed() - 150;
        legend.draw(&Rectangle::new(
            [(x, y), (x + 22, y + 20)],
            value_colour(v).filled(),
        ))?;
        let label = match v {
            0 => "0 (P-position)".to_string(),
            TOP_VALUE => format!("{TOP_VALUE} or more"),
            _ => v.to_string(),
        };
        legend.draw(&Text::new(label, (x + 30, y + 2), (FONT, 18)))?;
    }
    root.present()?;
    Ok(())
}

/// Seconds and memo positions per wheel, on log scales.
fn wheel_costs<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, wheels: &[WheelCost]) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let body = titled_body(
        &root,
        "Wheels W_n: time and memo size to solve each from an empty memo",
    )?;
    let (left, right) = body.split_horizontally(SIZE.0 / 2);
    let lo = wheels.iter().map(|w| w.n).min().unwrap_or(3) as f64 - 0.5;
    let hi = wheels.iter().map(|w| w.n).max().unwrap_or(4) as f64 + 0.5;
    let panels = [
        (
            &left,
            "seconds",
            wheels
                .iter()
                .map(|w| (w.n as f64, w.seconds.max(1e-6)))
                .collect::<Vec<(f64, f64)>>(),
        ),
        (
            &right,
            "positions in the memo",
            wheels
                .iter()
                .map(|w| (w.n as f64, w.memo.max(1) as f64))
                .collect(),
        ),
    ];
    for (area, what, points) in panels {
        let ymin = points.iter().map(|p| p.1).fold(f64::MAX, f64::min) / 2.0;
        let ymax = points.iter().map(|p| p.1).fold(0.0, f64::max) * 2.0;
        let mut chart = ChartBuilder::on(area)
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(axis(lo..hi), (ymin..ymax).log_scale())?;
        chart
            .configure_mesh()
            .x_labels(points.len())
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .x_desc("rim vertices n")
            .y_desc(what)
            .label_style((FONT, 18))
            .draw()?;
        chart.draw_series(LineSeries::new(
            points.iter().copied(),
            BLUE.stroke_width(2),
        ))?;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 5, BLUE.filled())))?;
    }
    root.present()?;
    Ok(())
}
