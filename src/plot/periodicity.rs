//! The periodicity figure: the rows of period > 1, their periods and preperiods.

use super::*;
use crate::base::bytes::narrow;

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
        .margin_right(32)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(axis(0.0..last_row), 0.0..max_p + 1.0)?;
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
                    let pre = (start - narrow::<u32, _>(r)) as f64 - slope * r as f64;
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
        .margin_right(32)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(axis(0.0..last_row), axis(lo - pad..hi + pad))?;
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
    legend(&mut chart, SeriesLabelPosition::UpperLeft, 14)?;
    Ok(())
}

/// The periodicity figure.
pub(super) struct PeriodicityFigure<'a>(pub &'a Analysis);

impl Figure for PeriodicityFigure<'_> {
    const NAME: &'static str = "periodicity";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        periodicity(root, self.0)
    }
}
