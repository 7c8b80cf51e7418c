//! The census figure: the class of every row in bands, and where rows settle.

use super::table::DEAD;
use super::*;

/// Groups of rows in the census figure's class bands.
const CENSUS_GROUPS: usize = 200;

/// Most rows drawn as points in the census figure (every k-th row beyond).
const CENSUS_POINTS: usize = 20_000;

/// The class of a row in the census figure, in the order of its bands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Constant,
    Period1,
    Period2,
    Period3,
    Period4OrMore,
    Evidence,
    Open,
}

impl Class {
    /// Every class, in band order (bottom first).
    const ALL: [Class; 7] = [
        Class::Constant,
        Class::Period1,
        Class::Period2,
        Class::Period3,
        Class::Period4OrMore,
        Class::Evidence,
        Class::Open,
    ];

    fn of(row: &Option<RowStatus>) -> Class {
        match row {
            None => Class::Open,
            Some(s) => match &s.fate {
                Fate::Constant { .. } => Class::Constant,
                Fate::Periodic { .. } if !s.is_proved() => Class::Evidence,
                Fate::Periodic { pattern, .. } => Class::ALL[pattern.len().min(4)],
            },
        }
    }

    fn label(self) -> &'static str {
        match self {
            Class::Constant => "constant (proved)",
            Class::Period1 => "period 1 (proved)",
            Class::Period2 => "period 2 (proved)",
            Class::Period3 => "period 3 (proved)",
            Class::Period4OrMore => "period >= 4 (proved)",
            Class::Evidence => "periodic, evidence only",
            Class::Open => "open",
        }
    }

    fn colour(self) -> RGBColor {
        match self {
            Class::Constant => DEAD,
            Class::Period1 => RGBColor(59, 82, 139),
            Class::Period2 => RGBColor(33, 145, 140),
            Class::Period3 => RGBColor(94, 201, 98),
            Class::Period4OrMore => RGBColor(253, 200, 37),
            Class::Evidence => RGBColor(160, 190, 230),
            Class::Open => RGBColor(170, 170, 170),
        }
    }
}

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
        frac[r / per][Class::of(row) as usize] += 1.0;
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
        .margin_right(32)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(axis(0.0..rows as f64), 0.0..1.0)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .x_desc("row r")
        .y_desc("fraction of rows")
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    for (k, class) in Class::ALL.into_iter().enumerate().rev() {
        let top_of = |b: usize| frac[b][..=k].iter().sum::<f64>();
        chart
            .draw_series((0..buckets).map(|b| {
                let x0 = (b * per) as f64;
                Rectangle::new(
                    [(x0, 0.0), (x0 + per as f64, top_of(b))],
                    class.colour().filled(),
                )
            }))?
            .label(class.label())
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 6), (x + 14, y + 6)], class.colour().filled())
            });
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight, 14)?;
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
    // Each group of `every` rows gives the lowest and the highest point of
    // each kind, so no extreme is left out when there are too many rows to
    // draw one by one.
    let starts = |periodic: bool| {
        a.rows
            .chunks(every)
            .enumerate()
            .flat_map(move |(g, group)| {
                let points = group.iter().enumerate().filter_map(move |(i, row)| {
                    let s = row.as_ref()?;
                    let start = match (&s.fate, periodic) {
                        (Fate::Constant { start }, false) => *start,
                        (Fate::Periodic { start, .. }, true) if s.is_proved() => *start,
                        _ => return None,
                    };
                    let r = (g * every + i) as f64;
                    Some((r, start as f64 - std::f64::consts::SQRT_2 * r))
                });
                let low = points.clone().min_by(|x, y| x.1.total_cmp(&y.1));
                let high = points.max_by(|x, y| x.1.total_cmp(&y.1));
                low.into_iter().chain(high.filter(|h| Some(*h) != low))
            })
    };
    let (lo, hi) = starts(true)
        .chain(starts(false))
        .fold((0.0f64, 0.0f64), |(lo, hi), (_, y)| (lo.min(y), hi.max(y)));
    let pad = (hi - lo).max(1.0) * 0.1;
    let mut chart = ChartBuilder::on(area)
        .caption(
            if every == 1 {
                "Where rows settle: start q - sqrt(2) r against r".to_string()
            } else {
                format!(
                    "Where rows settle: start q - sqrt(2) r against r \
                     (lowest and highest of each kind per {every} rows)"
                )
            },
            (FONT, 22),
        )
        .margin(12)
        .margin_right(32)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(axis(0.0..rows as f64), axis(lo - pad..hi + pad))?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("row r")
        .y_desc("start q - sqrt(2) r")
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    let periodic = Class::Period1.colour();
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
    legend(&mut chart, SeriesLabelPosition::LowerRight, 14)?;
    Ok(())
}

/// The census figure.
pub(super) struct CensusFigure<'a>(pub &'a Analysis);

impl Figure for CensusFigure<'_> {
    const NAME: &'static str = "census";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        census(root, self.0)
    }
}
