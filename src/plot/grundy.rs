//! The figure of the Grundy census (`grundy-census.tsv`, read by
//! `grundy::file`): each line's least period over `(q, r)`, and the starts
//! against `q`. Uses `grundy::census`'s line fates.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Canvas, DrawResult, FONT, Figure, Format, Made, PlotError, SIZE, TITLE_HEIGHT};
use crate::grundy::ProvedLine;

/// Draws `grundy-periods` into `dir`, by `command`; returns the file written.
/// Its record (figures.tsv) says the largest `q`, the number of lines and
/// of lines in order (the complete prefix in the sweep's order), and which
/// lines (a digest): a census that stopped part way holds fewer of either
/// than one of the same largest `q`, or other lines than another that
/// stopped; only the same lines, or every line up to a `q` no smaller, may
/// replace its figure.
pub fn plot_grundy(
    lines: &[ProvedLine],
    dir: &Path,
    format: Format,
    command: String,
    replace: bool,
) -> Result<PathBuf, PlotError> {
    let q = lines.iter().map(|l| u64::from(l.q)).max().unwrap_or(0);
    let made = Made::new("grundy", q, command)
        .with("lines", lines.len() as u64)
        .with(
            "lines in order",
            crate::grundy::sequences::prefix_terms(lines),
        )
        .with("lines digest", digest(lines));
    let figures = [(<PeriodsFigure as Figure>::NAME, made.clone())];
    let mut c = Canvas::open(dir, format, replace, &figures)?;
    let written = c.render(&PeriodsFigure(lines), &made)?;
    c.commit()?;
    Ok(written)
}

/// Which lines a census holds, as one number: FNV-1a over its lines `(q, r)`
/// in order (equal for the same lines; a figure from other lines is told by
/// it, as their counts may be equal).
fn digest(lines: &[ProvedLine]) -> u64 {
    let mut at: Vec<(u32, u32)> = lines.iter().map(|l| (l.q, l.r)).collect();
    at.sort_unstable();
    at.dedup();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in at
        .iter()
        .flat_map(|&(q, r)| q.to_le_bytes().into_iter().chain(r.to_le_bytes()))
    {
        h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The Grundy census figure.
struct PeriodsFigure<'a>(&'a [ProvedLine]);

impl Figure for PeriodsFigure<'_> {
    const NAME: &'static str = "grundy-periods";
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        draw(root, self.0)
    }
}

/// A colour for `log2(period)` out of `top`.
fn period_colour(log2: f64, top: f64) -> RGBColor {
    let hue = 0.7 * (1.0 - (log2 / top.max(1.0)).clamp(0.0, 1.0));
    let rgb = HSLColor(hue, 0.75, 0.5).to_rgba();
    RGBColor(rgb.0, rgb.1, rgb.2)
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, lines: &[ProvedLine]) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (top, body) = root.split_vertically(TITLE_HEIGHT);
    top.titled(
        "Sprague-Grundy values: the period of G(p,q,r) - p on each line (q,r), and where it starts",
        (FONT, 22),
    )?;
    let (left, right) = body.split_horizontally(SIZE.0 / 2);
    let q_max = lines.iter().map(|f| f.q).max().unwrap_or(1) as f64;
    let log2 = |f: &ProvedLine| (f.period as f64).log2();
    let top_log = lines.iter().map(log2).fold(1.0, f64::max);
    let mut heat = ChartBuilder::on(&left)
        .caption(
            format!(
                "least period (colour: log2, up to {:.0})",
                2f64.powf(top_log)
            ),
            (FONT, 18),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5..q_max + 0.5, -0.5..q_max + 0.5)?;
    heat.configure_mesh()
        .disable_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("q (middle row)")
        .y_desc("r (top row)")
        .label_style((FONT, 16))
        .draw()?;
    heat.draw_series(lines.iter().map(|f| {
        let (q, r) = (f.q as f64, f.r as f64);
        Rectangle::new(
            [(q - 0.5, r - 0.5), (q + 0.5, r + 0.5)],
            period_colour(log2(f), top_log).filled(),
        )
    }))?;
    let start_max = lines.iter().map(|f| f.start).max().unwrap_or(1) as f64;
    let mut starts = ChartBuilder::on(&right)
        .caption("start of each line (first p of the period)", (FONT, 18))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..q_max + 1.0, (1.0..start_max * 1.5).log_scale())?;
    starts
        .configure_mesh()
        .x_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("q (middle row)")
        .y_desc("start p")
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style((FONT, 16))
        .draw()?;
    starts.draw_series(lines.iter().map(|f| {
        Circle::new(
            (f.q as f64, f.start.max(1) as f64),
            3,
            period_colour(log2(f), top_log).filled(),
        )
    }))?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::stop::Stop;
    use crate::grundy::census::census;

    #[test]
    fn the_figure_renders_from_a_small_census() {
        let c = census(8, 100_000, &Stop::new(), &mut |_| {});
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<ProvedLine> = c.lines.iter().map(ProvedLine::from).collect();
        let path = plot_grundy(&lines, dir.path(), Format::Png, "a test".into(), false).unwrap();
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        assert_eq!((reader.info().width, reader.info().height), SIZE);
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut buf).unwrap();
        let coloured = buf
            .chunks(3)
            .filter(|p| p[0] != p[1] || p[1] != p[2])
            .count();
        assert!(coloured > 5_000, "{coloured} coloured pixels");
    }
}
