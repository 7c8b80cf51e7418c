//! The image of the table: `f(q,r) - q` over the whole triangle, sampled,
//! with its colour bar.

use super::*;
use crate::base::bytes::narrow;

/// Samples per axis in the image of the table (one per pixel of the plot area).
const IMAGE_SAMPLES: u32 = 900;

/// Width of the colour bar beside the image of the table.
const COLOUR_BAR_WIDTH: u32 = 170;

/// `f(q,r) - q` (or `None` above the diagonal) at the centre of each sample cell.
struct Image {
    samples: u32,
    /// Row-major, `r` sample index outer.
    cells: Vec<Option<i64>>,
    max_offset: i64,
}

fn sample_table(t: &Table) -> Result<Image, crate::f::table::TableError> {
    let n = t.n().unwrap_or(0);
    let samples = IMAGE_SAMPLES.min(narrow::<u32, _>(n) + 1);
    let at = |i: u32| ((i as u64 * 2 + 1) * (n + 1) / (2 * samples as u64)).min(n);
    let mut cells = Vec::with_capacity((samples * samples) as usize);
    let mut max_offset = 1;
    for i in 0..samples {
        let r = at(i);
        for j in 0..samples {
            let q = at(j);
            let v = match r <= q {
                true => Some(
                    t.value(narrow::<u32, _>(q), narrow::<u32, _>(r))? as i64 - q.cast_signed(),
                ),
                false => None,
            };
            if let Some(v) = v {
                max_offset = max_offset.max(v);
            }
            cells.push(v);
        }
    }
    Ok(Image {
        samples,
        cells,
        max_offset,
    })
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
            // Between two bytes (`u` in [0, 1]), so a byte.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let mix = |a: u8, b: u8| (a as f64 + u * (b as f64 - a as f64)).round() as u8;
            return RGBColor(mix(c0.0, c1.0), mix(c0.1, c1.1), mix(c0.2, c1.2));
        }
    }
    RGBColor(253, 231, 37)
}

/// Cells of rows that have died (`f(q,r) < q`).
pub(super) const DEAD: RGBColor = RGBColor(200, 70, 60);

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
    legend(&mut chart, SeriesLabelPosition::UpperLeft, 18)?;

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
        .build_cartesian_2d(0.0..1.0, axis(0.0..max))?;
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

/// The image of the table.
pub(super) struct TableFigure {
    image: Image,
    n: u32,
}

impl TableFigure {
    /// Samples `t`, whose largest column is `n`.
    pub(super) fn new(t: &Table, n: u32) -> Result<TableFigure, crate::f::table::TableError> {
        Ok(TableFigure {
            image: sample_table(t)?,
            n,
        })
    }
}

impl Figure for TableFigure {
    const NAME: &'static str = "table";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        table_image(root, &self.image, self.n)
    }
}
