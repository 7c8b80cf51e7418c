//! How the table grows: quantile bands of `f(q,r) - q` per column, and the
//! differences figure.

use super::*;
use crate::base::bytes::narrow;

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
                axis(dev.first_n as f64..dev.last_n as f64),
                axis(dev.min - pad..dev.max + pad),
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
    bins: &[crate::f::analysis::growth::Bin],
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
    super::legend(chart, SeriesLabelPosition::UpperRight, 13)?;
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
            .margin_right(32)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(
                axis((lo - 1) as f64 + 0.5..(hi + 1) as f64 - 0.5),
                axis(0.0..top),
            )?;
        chart
            .configure_mesh()
            .y_label_formatter(&|v| format!("{v:.0}"))
            .disable_x_mesh()
            .x_labels(narrow::<usize, _>(hi - lo + 1))
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

/// The growth figure.
pub(super) struct GrowthFigure<'a>(pub &'a Growth);

impl Figure for GrowthFigure<'_> {
    const NAME: &'static str = "growth";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        growth(root, self.0)
    }
}

/// The differences figure.
pub(super) struct DifferencesFigure<'a>(pub &'a Growth);

impl Figure for DifferencesFigure<'_> {
    const NAME: &'static str = "differences";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        differences(root, self.0)
    }
}
