//! One row up close: its values, its start and period marked.

use super::*;
use crate::base::bytes::narrow;

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
                Some(*start),
                narrow::<u32, _>(pattern.len()),
            )
        }
        Fate::Constant { start } => (format!("constant from q = {start}"), Some(*start), 1),
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
        .map(|q| Ok((q as f64, t.value(q, r)? as f64 - q as f64)))
        .collect::<Result<_, crate::f::table::TableError>>()?;
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
    legend(&mut chart, SeriesLabelPosition::LowerRight, 16)?;
    root.present()?;
    Ok(())
}

/// The row close-up.
pub(super) struct RowFigure<'a> {
    /// The table the row is read from.
    pub t: &'a Table,
    /// Its analysis (the row's fate).
    pub a: &'a Analysis,
    /// The row.
    pub row: u32,
}

impl Figure for RowFigure<'_> {
    const NAME: &'static str = "row";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        row_close_up(root, self.t, self.a, self.row)
    }
}
