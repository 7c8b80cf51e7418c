//! One row up close: its values, its start and period marked.

use super::*;
use crate::base::bytes::narrow;
use crate::f::lookup::{LookupError, Sources};

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

/// One row up close, as drawn: the row, its fate, and the values shown.
pub struct RowData {
    /// The row.
    pub r: u64,
    /// Its fate, where one is known.
    pub fate: Option<RowStatus>,
    /// `(q, f(q,r))` for the columns shown, in order.
    pub values: Vec<(u64, u128)>,
    /// Whether the values come from a census's proof rather than the table
    /// (then only columns from the row's start on are shown).
    pub from_census: bool,
}

impl RowData {
    /// Row `r` by the look-up's source rule: where the table holds it, the
    /// columns from `r` to some periods past its start (at most the table's
    /// N); past the table, the same number of columns from its start on, as
    /// the census proved them. `fate`: the row's, as the table's analysis
    /// found it (`None`: the census's, if it has one). A column neither source
    /// gives is the look-up's error.
    pub fn read(
        sources: &Sources,
        r: u64,
        fate: Option<RowStatus>,
    ) -> Result<RowData, LookupError> {
        let n = sources.table.as_ref().and_then(|t| t.n());
        let in_table = n.is_some_and(|n| n >= r);
        let fate = fate.or_else(|| {
            let d = sources.census.as_ref()?;
            d.status(u32::try_from(r).ok()?)
        });
        let (start, period) = match fate.as_ref().map(|s| &s.fate) {
            Some(Fate::Periodic { start, pattern }) => (u64::from(*start), pattern.len() as u64),
            Some(Fate::Constant { start }) => (u64::from(*start), 1),
            None => (r, 1),
        };
        let span = 12 * period.max(4) + 40;
        let (from, to) = match (in_table, n) {
            (true, Some(n)) => (r, n.min(start.max(r).saturating_add(span))),
            _ => {
                let from = start.max(r);
                (from, from.saturating_add(span))
            }
        };
        if let Some(q) = sources.first_unanswered(r, from, to) {
            sources.answer(q, r)?;
        }
        let values = (from..=to)
            .map(|q| Ok((q, sources.answer(q, r)?.value)))
            .collect::<Result<_, LookupError>>()?;
        Ok(RowData {
            r,
            fate,
            values,
            from_census: !in_table,
        })
    }
}

fn row_close_up<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, row: &RowData) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let r = row.r;
    let (mut desc, start, period) = describe_row(&row.fate);
    if row.from_census {
        desc += ", from the census";
    }
    let shown_from = row.values.first().map_or(r, |v| v.0);
    let shown_to = row.values.last().map_or(r, |v| v.0);
    // Plotted as f64: a value of a row past 2^53 loses its last bits in the
    // drawing only, never in a number printed.
    #[allow(clippy::cast_precision_loss)]
    let pts: Vec<(f64, f64)> = row
        .values
        .iter()
        .map(|&(q, f)| (q as f64, f as f64 - q as f64))
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
            axis(lo - pad..hi + pad),
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
            // No preperiod shown (a row from the census starts at its start).
            if to <= from {
                continue;
            }
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
pub(super) struct RowFigure<'a>(pub &'a RowData);

impl Figure for RowFigure<'_> {
    const NAME: &'static str = "row";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        row_close_up(root, self.0)
    }
}
