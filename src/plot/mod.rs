//! Figures of a table and its analysis (PNG or SVG, with `plotters`). Reads the
//! table (the image of `f`) and an [`Analysis`]; writes only image files. Uses
//! `table`, `analysis` and `proof`; [`graphs`] draws graph Chomp's results from
//! the files `chomp3 graph` writes (it uses nothing else of the library).
//!
//! Text is drawn with DejaVu Sans compiled into the binary, so the figures come
//! out the same on a machine with no fonts or fontconfig at all.

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::analysis::Analysis;
use crate::analysis::growth::{Deviation, Growth};
use crate::proof::{Fate, RowStatus};
use crate::table::Table;

pub mod graphs;
pub mod grundy;

/// Image file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Bitmap, for the README.
    Png,
    /// Vector.
    Svg,
}

impl Format {
    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }
}

/// Size of every figure in pixels.
const SIZE: (u32, u32) = (1200, 900);
/// Samples per axis in the image of the table (one per pixel of the plot area).
const IMAGE_SAMPLES: u32 = 900;
/// Width of the colour bar beside the image of the table.
const COLOUR_BAR_WIDTH: u32 = 170;
/// Height of a figure's title strip.
const TITLE_HEIGHT: u32 = 50;
/// Groups of rows in the census figure's class bands.
const CENSUS_GROUPS: usize = 200;
/// Most rows drawn as points in the census figure (every k-th row beyond).
const CENSUS_POINTS: usize = 20_000;

const FONT: &str = "sans-serif";

fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for (style, bytes) in [
            (FontStyle::Normal, dejavu::sans::regular()),
            (FontStyle::Bold, dejavu::sans::bold()),
            (FontStyle::Italic, dejavu::sans::oblique()),
            (FontStyle::Oblique, dejavu::sans::oblique()),
        ] {
            plotters::style::register_font(FONT, style, bytes)
                .unwrap_or_else(|_| panic!("embedded font"));
        }
    });
}

/// Why a figure was not drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The output directory or a file in it could not be written.
    #[error("{path}: {error}")]
    Io {
        /// The directory or file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The drawing library failed (writing the image, most often).
    #[error("drawing: {0}")]
    Draw(String),
}

impl PlotError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PlotError + '_ {
        move |error| PlotError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> PlotError {
        PlotError::Draw(e.to_string())
    }
}

type DrawResult = Result<(), PlotError>;

/// Draws every figure into `dir`; returns the files written. `row` is the row
/// shown up close. Without a table (an analysis of a census alone), the image of
/// the table and the row close-up are left out.
pub fn plot_all(
    t: Option<&Table>,
    a: &Analysis,
    dir: &Path,
    format: Format,
    row: u32,
) -> Result<Vec<PathBuf>, PlotError> {
    register_fonts();
    std::fs::create_dir_all(dir).map_err(PlotError::io(dir))?;
    let ext = format.extension();
    let mut written = Vec::new();
    let mut render = |name: &str,
                      draw: &dyn Fn(DrawingArea<BitMapBackend, Shift>) -> DrawResult,
                      draw_svg: &dyn Fn(DrawingArea<SVGBackend, Shift>) -> DrawResult|
     -> DrawResult {
        let path = dir.join(format!("{name}.{ext}"));
        match format {
            Format::Png => draw(BitMapBackend::new(&path, SIZE).into_drawing_area())?,
            Format::Svg => draw_svg(SVGBackend::new(&path, SIZE).into_drawing_area())?,
        }
        written.push(path);
        Ok(())
    };
    if let Some(t) = t {
        let image = sample_table(t);
        render(
            "table",
            &|root| table_image(root, &image, a.facts.n),
            &|root| table_image(root, &image, a.facts.n),
        )?;
    }
    render("growth", &|root| growth(root, &a.growth), &|root| {
        growth(root, &a.growth)
    })?;
    render("census", &|root| census(root, a), &|root| census(root, a))?;
    render("periodicity", &|root| periodicity(root, a), &|root| {
        periodicity(root, a)
    })?;
    if let Some(t) = t {
        render("row", &|root| row_close_up(root, t, a, row), &|root| {
            row_close_up(root, t, a, row)
        })?;
    }
    render(
        "differences",
        &|root| differences(root, &a.growth),
        &|root| differences(root, &a.growth),
    )?;
    Ok(written)
}

/// `f(q,r) - q` (or `None` above the diagonal) at the centre of each sample cell.
struct Image {
    samples: u32,
    /// Row-major, `r` sample index outer.
    cells: Vec<Option<i64>>,
    max_offset: i64,
}

fn sample_table(t: &Table) -> Image {
    let n = t.n().unwrap_or(0);
    let samples = IMAGE_SAMPLES.min(n as u32 + 1);
    let at = |i: u32| ((i as u64 * 2 + 1) * (n + 1) / (2 * samples as u64)).min(n);
    let mut cells = Vec::with_capacity((samples * samples) as usize);
    let mut max_offset = 1;
    for i in 0..samples {
        let r = at(i);
        for j in 0..samples {
            let q = at(j);
            let v = (r <= q).then(|| t.value(q as u32, r as u32) as i64 - q as i64);
            if let Some(v) = v {
                max_offset = max_offset.max(v);
            }
            cells.push(v);
        }
    }
    Image {
        samples,
        cells,
        max_offset,
    }
}

/// Colour of an offset `f(q,r) - q >= 0` on a blue-green-yellow scale.
fn offset_colour(x: f64) -> RGBColor {
    let stops = [
        (0.0, (68, 1, 84)),
        (0.25, (59, 82, 139)),
        (0.5, (33, 145, 140)),
        (0.75, (94, 201, 98)),
        (1.0, (253, 231, 37)),
    ];
    let x = x.clamp(0.0, 1.0);
    for w in stops.windows(2) {
        let ((x0, c0), (x1, c1)) = (w[0], w[1]);
        if x <= x1 {
            let u = (x - x0) / (x1 - x0);
            let mix = |a: u8, b: u8| (a as f64 + u * (b as f64 - a as f64)).round() as u8;
            return RGBColor(mix(c0.0, c1.0), mix(c0.1, c1.1), mix(c0.2, c1.2));
        }
    }
    RGBColor(253, 231, 37)
}

/// Cells of rows that have died (`f(q,r) < q`).
const DEAD: RGBColor = RGBColor(200, 70, 60);
const ABOVE: RGBColor = RGBColor(245, 245, 245);

fn table_image<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, img: &Image, n: u32) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (main, bar) = root.split_horizontally(SIZE.0 - COLOUR_BAR_WIDTH);
    let n = n as f64;
    let mut chart = ChartBuilder::on(&main)
        .caption(format!("f(q,r) - q for 0 <= r <= q <= {n}"), (FONT, 30))
        .margin(15)
        .x_label_area_size(55)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..n + 1.0, 0.0..n + 1.0)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .disable_mesh()
        .x_desc("q (middle row)")
        .y_desc("r (top row)")
        .label_style((FONT, 18))
        .axis_desc_style((FONT, 22))
        .draw()?;
    let cell = (n + 1.0) / img.samples as f64;
    chart.draw_series(
        (0..img.samples)
            .flat_map(|i| (0..img.samples).map(move |j| (i, j)))
            .map(|(i, j)| {
                let colour = match img.cells[(i * img.samples + j) as usize] {
                    None => ABOVE,
                    Some(v) if v < 0 => DEAD,
                    Some(v) => offset_colour(v as f64 / img.max_offset as f64),
                };
                let (x, y) = (j as f64 * cell, i as f64 * cell);
                Rectangle::new([(x, y), (x + cell, y + cell)], colour.filled())
            }),
    )?;
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(0.0, 0.0), (0.0, 0.0)],
            DEAD.filled(),
        )))?
        .label("constant rows (f < q)")
        .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], DEAD.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 18))
        .draw()?;

    colour_bar(&bar, img.max_offset as f64)?;
    root.present()?;
    Ok(())
}

/// The scale of offsets `0 ..= max` beside the image of the table.
fn colour_bar<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, max: f64) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let mut cb = ChartBuilder::on(area)
        .margin_top(60)
        .margin_bottom(70)
        .margin_right(20)
        .y_label_area_size(85)
        .build_cartesian_2d(0.0..1.0, 0.0..max)?;
    cb.configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .disable_mesh()
        .disable_x_axis()
        .y_desc("f(q,r) - q")
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 20))
        .draw()?;
    let steps = 200;
    cb.draw_series((0..steps).map(|k| {
        let (y0, y1) = (
            max * k as f64 / steps as f64,
            max * (k + 1) as f64 / steps as f64,
        );
        Rectangle::new(
            [(0.0, y0), (1.0, y1)],
            offset_colour(k as f64 / steps as f64).filled(),
        )
    }))?;
    Ok(())
}

fn growth<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, g: &Growth) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(TITLE_HEIGHT);
    title.titled("Distance from the growth lines", (FONT, 30))?;
    let panels = body.split_evenly((3, 1));
    let names = [
        "d_n - a n, a = 1 + 1/sqrt 2",
        "q_n - b n, b = 1 + sqrt 2",
        "r_n - a n, a = 1 + 1/sqrt 2",
    ];
    let devs = g.named().map(|(_, _, d)| d);
    for (k, ((area, dev), name)) in panels.iter().zip(devs).zip(names).enumerate() {
        let pad = 0.15 * (dev.max - dev.min).max(0.1);
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .caption(
                format!(
                    "{name}: min {:.4} at n = {}, max {:.4} at n = {} (red); runs of {} n",
                    dev.min,
                    dev.min_at,
                    dev.max,
                    dev.max_at,
                    dev.bins.first().map_or(1, |b| b.last_n - b.first_n + 1)
                ),
                (FONT, 19),
            )
            .build_cartesian_2d(
                dev.first_n as f64..dev.last_n as f64,
                dev.min - pad..dev.max + pad,
            )?;
        chart
            .configure_mesh()
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.1}"))
            .x_desc("n")
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .draw()?;
        quantile_bands(&mut chart, &dev.bins, k == 0)?;
        for y in [dev.min, dev.max] {
            chart.draw_series(DashedLineSeries::new(
                [(dev.first_n as f64, y), (dev.last_n as f64, y)],
                8,
                5,
                RED.stroke_width(2),
            ))?;
        }
    }
    root.present()?;
    Ok(())
}

/// Shades of the growth figure's bands: min..max, 5..95 %, 25..75 %, median.
const BAND_COLOURS: [RGBColor; 4] = [
    RGBColor(205, 215, 240),
    RGBColor(140, 165, 220),
    RGBColor(59, 82, 139),
    RGBColor(250, 200, 40),
];

/// Per run of `n`: the range, the 5..95 % and 25..75 % bands, and the median.
fn quantile_bands<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    bins: &[crate::analysis::growth::Bin],
    legend: bool,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let labels = ["min .. max", "5 % .. 95 %", "25 % .. 75 %", "median"];
    for (k, (lo, hi)) in [(0, 6), (1, 5), (2, 4)].into_iter().enumerate() {
        let colour = BAND_COLOURS[k];
        chart
            .draw_series(bins.iter().map(|b| {
                Rectangle::new(
                    [
                        (b.first_n as f64, b.quantiles[lo]),
                        (b.last_n as f64 + 1.0, b.quantiles[hi]),
                    ],
                    colour.filled(),
                )
            }))?
            .label(labels[k])
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled()));
    }
    let median = BAND_COLOURS[3];
    chart
        .draw_series(LineSeries::new(
            bins.iter()
                .map(|b| ((b.first_n + b.last_n) as f64 / 2.0, b.quantiles[3])),
            median.stroke_width(2),
        ))?
        .label(labels[3])
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], median.stroke_width(2)));
    if !legend {
        return Ok(());
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 13))
        .draw()?;
    Ok(())
}

/// Class of a row for the census figure: 0 constant, 1..=4 proved with period
/// 1, 2, 3, >= 4, 5 periodic by evidence only, 6 open.
fn class_index(row: &Option<RowStatus>) -> usize {
    match row {
        None => 6,
        Some(s) => match &s.fate {
            Fate::Constant { .. } => 0,
            Fate::Periodic { .. } if !s.is_proved() => 5,
            Fate::Periodic { pattern, .. } => pattern.len().min(4),
        },
    }
}

/// Labels and colours of the census figure's classes, by [`class_index`].
const CLASS_LABELS: [&str; 7] = [
    "constant (proved)",
    "period 1 (proved)",
    "period 2 (proved)",
    "period 3 (proved)",
    "period >= 4 (proved)",
    "periodic, evidence only",
    "open",
];
const CLASS_COLOURS: [RGBColor; 7] = [
    DEAD,
    RGBColor(59, 82, 139),
    RGBColor(33, 145, 140),
    RGBColor(94, 201, 98),
    RGBColor(253, 200, 37),
    RGBColor(160, 190, 230),
    RGBColor(170, 170, 170),
];

fn census<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, a: &Analysis) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(SIZE.1 / 2);
    class_bands(&top, a)?;
    settle_points(&bottom, a)?;
    root.present()?;
    Ok(())
}

/// The fraction of each class per group of rows, stacked.
fn class_bands<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, a: &Analysis) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let rows = a.rows.len();
    let per = rows.div_ceil(CENSUS_GROUPS);
    let buckets = rows.div_ceil(per);
    let mut frac = vec![[0.0f64; 7]; buckets];
    for (r, row) in a.rows.iter().enumerate() {
        frac[r / per][class_index(row)] += 1.0;
    }
    for (b, f) in frac.iter_mut().enumerate() {
        let size = (rows - b * per).min(per) as f64;
        f.iter_mut().for_each(|x| *x /= size);
    }
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("Row census, N = {} (rows in groups of {per})", a.facts.n),
            (FONT, 26),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..rows as f64, 0.0..1.0)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .x_desc("row r")
        .y_desc("fraction of rows")
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    for k in (0..7).rev() {
        let top_of = |b: usize| frac[b][..=k].iter().sum::<f64>();
        chart
            .draw_series((0..buckets).map(|b| {
                let x0 = (b * per) as f64;
                Rectangle::new(
                    [(x0, 0.0), (x0 + per as f64, top_of(b))],
                    CLASS_COLOURS[k].filled(),
                )
            }))?
            .label(CLASS_LABELS[k])
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 6), (x + 14, y + 6)], CLASS_COLOURS[k].filled())
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .draw()?;
    Ok(())
}

/// Start column of constant and proved periodic rows against the row, as the
/// distance from the line `q = sqrt(2) r`.
fn settle_points<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, a: &Analysis) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let rows = a.rows.len();
    let every = (rows / CENSUS_POINTS).max(1);
    let starts = |periodic: bool| {
        a.rows
            .iter()
            .enumerate()
            .step_by(every)
            .filter_map(move |(r, row)| {
                let s = row.as_ref()?;
                let start = match (&s.fate, periodic) {
                    (Fate::Constant { start }, false) => *start,
                    (Fate::Periodic { start, .. }, true) if s.is_proved() => *start,
                    _ => return None,
                };
                Some((r as f64, start as f64 - std::f64::consts::SQRT_2 * r as f64))
            })
    };
    let (lo, hi) = starts(true)
        .chain(starts(false))
        .fold((0.0f64, 0.0f64), |(lo, hi), (_, y)| (lo.min(y), hi.max(y)));
    let pad = (hi - lo).max(1.0) * 0.1;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "Where rows settle: start q - sqrt(2) r against r",
            (FONT, 22),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..rows as f64, lo - pad..hi + pad)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("row r")
        .y_desc("start q - sqrt(2) r")
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    let periodic = CLASS_COLOURS[1];
    chart
        .draw_series(starts(true).map(|p| Circle::new(p, 1, periodic.filled())))?
        .label("proved periodic rows: preperiod start")
        .legend(move |(x, y)| Circle::new((x + 7, y), 4, periodic.filled()));
    chart
        .draw_series(starts(false).map(|p| Circle::new(p, 1, DEAD.filled())))?
        .label("constant rows: the q with f(q,r) = q")
        .legend(|(x, y)| Circle::new((x + 7, y), 4, DEAD.filled()));
    chart
        .draw_series(LineSeries::new(
            [(0.0, 0.0), (rows as f64, 0.0)],
            BLACK.stroke_width(2),
        ))?
        .label("the line q = sqrt(2) r")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .draw()?;
    Ok(())
}

/// Colour of a period in the periodicity figure.
fn period_colour(p: usize) -> RGBColor {
    match p {
        2 => RGBColor(33, 145, 140),
        3 => RGBColor(94, 201, 98),
        4 => RGBColor(59, 82, 139),
        5..=8 => RGBColor(230, 140, 30),
        _ => RGBColor(200, 40, 40),
    }
}

/// Rows with period above 1: the period, and the preperiod `start - r`, against r.
fn periodicity<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, a: &Analysis) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let rows = periodic_rows(a);
    let last_row = a.rows.len() as f64;
    let (top, bottom) = root.split_vertically(SIZE.1 * 2 / 5);
    let max_p = rows.iter().map(|x| x.1).max().unwrap_or(2) as f64;
    let mut chart = ChartBuilder::on(&top)
        .caption(
            format!(
                "Rows with period > 1 among rows 0..{} ({} rows): the period",
                a.rows.len() - 1,
                rows.len()
            ),
            (FONT, 24),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..last_row, 0.0..max_p + 1.0)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("row r")
        .y_desc("least period")
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    chart.draw_series(
        rows.iter()
            .map(|&(r, p, _)| Circle::new((r as f64, p as f64), 3, period_colour(p).filled())),
    )?;
    preperiod_panel(&bottom, &rows, last_row)?;
    root.present()?;
    Ok(())
}

/// The rows with period > 1: (row, period, preperiod less the line
/// (sqrt 2 - 1) r it follows).
fn periodic_rows(a: &Analysis) -> Vec<(u64, usize, f64)> {
    a.rows
        .iter()
        .enumerate()
        .filter_map(|(r, row)| {
            let s = row.as_ref().filter(|s| s.is_proved())?;
            match &s.fate {
                Fate::Periodic { start, pattern } if pattern.len() > 1 => {
                    let slope = std::f64::consts::SQRT_2 - 1.0;
                    let pre = (start - r as u64) as f64 - slope * r as f64;
                    Some((r as u64, pattern.len(), pre))
                }
                _ => None,
            }
        })
        .collect()
}

/// The lower panel of the periodicity figure: each row's preperiod.
fn preperiod_panel<DB: DrawingBackend>(
    bottom: &DrawingArea<DB, Shift>,
    rows: &[(u64, usize, f64)],
    last_row: f64,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (lo, hi) = rows
        .iter()
        .fold((0.0f64, 0.0f64), |(lo, hi), x| (lo.min(x.2), hi.max(x.2)));
    let pad = (hi - lo).max(1.0) * 0.1;
    let mut chart = ChartBuilder::on(bottom)
        .caption(
            "Their preperiod start - r (start: the least q from which f(q,r) - q repeats), less (sqrt 2 - 1) r",
            (FONT, 18),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..last_row, lo - pad..hi + pad)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("row r")
        .y_desc("start - r - (sqrt 2 - 1) r")
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    for (label, ps) in [
        ("period 2", 2..=2),
        ("period 3", 3..=3),
        ("period 4", 4..=4),
        ("period 5 to 8", 5..=8),
        ("period 9 or more", 9..=usize::MAX),
    ] {
        let colour = period_colour(*ps.start());
        chart
            .draw_series(
                rows.iter()
                    .filter(|x| ps.contains(&x.1))
                    .map(|&(r, _, pre)| Circle::new((r as f64, pre), 2, colour.filled())),
            )?
            .label(label)
            .legend(move |(x, y)| Circle::new((x + 7, y), 4, colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .draw()?;
    Ok(())
}

/// Shading of a row's preperiod and of its first period in the row figure.
const PREPERIOD: RGBColor = RGBColor(250, 220, 210);
const ONE_PERIOD: RGBColor = RGBColor(200, 235, 200);

/// The row figure's description of a row, its start and period.
fn describe_row(row: &Option<RowStatus>) -> (String, Option<u32>, u32) {
    let Some(s) = row else {
        return ("open within the table".to_string(), None, 1);
    };
    match &s.fate {
        Fate::Periodic { start, pattern } => {
            let how = if s.is_proved() {
                " (proved)"
            } else {
                " (evidence)"
            };
            (
                format!("period {} from q = {start}{how}", pattern.len()),
                Some(*start as u32),
                pattern.len() as u32,
            )
        }
        Fate::Constant { start } => (format!("constant from q = {start}"), Some(*start as u32), 1),
    }
}

fn row_close_up<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    t: &Table,
    a: &Analysis,
    r: u32,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let n = a.facts.n;
    let r = r.min(n);
    let (desc, start, period) = describe_row(&a.rows[r as usize]);
    let shown_from = r;
    let shown_to = n
        .min(start.unwrap_or(r).max(r) + 12 * period.max(4) + 40)
        .max(r);
    let pts: Vec<(f64, f64)> = (shown_from..=shown_to)
        .map(|q| (q as f64, t.value(q, r) as f64 - q as f64))
        .collect();
    let (lo, hi) = pts.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.1), hi.max(p.1))
    });
    let pad = ((hi - lo) * 0.15).max(2.0);
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Row r = {r}: f(q,{r}) - q, {desc}"), (FONT, 28))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(
            shown_from as f64 - 0.5..shown_to as f64 + 0.5,
            lo - pad..hi + pad,
        )?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("q")
        .y_desc("f(q,r) - q")
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 20))
        .draw()?;
    if let Some(s) = start {
        let (x0, y) = (shown_from as f64 - 0.5, (lo - pad, hi + pad));
        let period_end = (s + period) as f64 - 0.5;
        for (from, to, colour, label) in [
            (x0, s as f64 - 0.5, PREPERIOD, "preperiod"),
            (
                s as f64 - 0.5,
                period_end,
                ONE_PERIOD,
                "one period (the repeating block)",
            ),
        ] {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(from, y.0), (to, y.1)],
                    colour.filled(),
                )))?
                .label(label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled())
                });
        }
    }
    chart
        .draw_series(LineSeries::new(pts.iter().copied(), BLUE.stroke_width(1)))?
        .label("f(q,r) - q")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE));
    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 16))
        .draw()?;
    root.present()?;
    Ok(())
}

fn differences<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, g: &Growth) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(TITLE_HEIGHT);
    title.titled("Successive differences", (FONT, 30))?;
    let panels = body.split_evenly((1, 3));
    let devs: [&Deviation; 3] = g.named().map(|(_, _, d)| d);
    for ((area, dev), name) in
        panels
            .iter()
            .zip(devs)
            .zip(["d_(n+1) - d_n", "q_(n+1) - q_n", "r_(n+1) - r_n"])
    {
        let lo = *dev.differences.keys().next().unwrap_or(&0);
        let hi = *dev.differences.keys().last().unwrap_or(&0);
        let top = *dev.differences.values().max().unwrap_or(&1) as f64 * 1.15;
        let mut chart = ChartBuilder::on(area)
            .caption(name, (FONT, 22))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d((lo - 1) as f64 + 0.5..(hi + 1) as f64 - 0.5, 0.0..top)?;
        chart
            .configure_mesh()
            .y_label_formatter(&|v| format!("{v:.0}"))
            .disable_x_mesh()
            .x_labels((hi - lo + 1) as usize)
            .x_label_formatter(&|x| format!("{}", x.round()))
            .x_desc("difference")
            .y_desc("count")
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .draw()?;
        chart.draw_series(dev.differences.iter().map(|(&d, &c)| {
            Rectangle::new(
                [(d as f64 - 0.4, 0.0), (d as f64 + 0.4, c as f64)],
                RGBColor(59, 82, 139).filled(),
            )
        }))?;
        chart.draw_series(dev.differences.iter().map(|(&d, &c)| {
            Text::new(
                c.to_string(),
                (d as f64 - 0.3, c as f64 + top * 0.02),
                (FONT, 14),
            )
        }))?;
    }
    root.present()?;
    Ok(())
}
