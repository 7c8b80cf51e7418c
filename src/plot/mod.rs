//! Figures of a table and its analysis (PNG or SVG, with `plotters`), one file
//! per figure, each a `Figure` drawn by `render`. Reads the table (the image
//! of `f`) and an [`Analysis`]; writes only image files (and their record).
//! Uses `table`, `analysis`, `proof`, `atomic_write`, `seal` and `bytes`; [`graphs`] draws graph Chomp's results from the files
//! `chomp3 graph` writes (read by `graph::summary`), [`grundy`] the Grundy
//! census from its file. [`record`] keeps, beside the figures, what each was
//! drawn from, so that no figure is replaced by one from a smaller or another
//! source unless the caller says so.
//!
//! Text is drawn with DejaVu Sans compiled into the binary, so the figures come
//! out the same on a machine with no fonts or fontconfig at all.

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::base::atomic_write::FileSet;
use crate::f::analysis::Analysis;
use crate::f::analysis::growth::{Deviation, Growth};
use crate::f::proof::{Fate, RowStatus};
use crate::f::table::Table;

mod census;
pub mod graphs;
mod growth;
pub mod grundy;
mod periodicity;
pub mod record;
pub mod row;
mod table;

pub use record::Made;
use record::Record;

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

/// Height of a figure's title strip.
const TITLE_HEIGHT: u32 = 50;

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
    #[error("{}", named(.path, .error))]
    Io {
        /// The directory or file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The drawing library failed (writing the image, most often).
    #[error("drawing: {0}")]
    Draw(String),
    /// The table read failed its checks.
    #[error("{0}")]
    Table(#[from] crate::f::table::TableError),
    /// A figure would replace one the caller did not say to replace.
    #[error("{0}")]
    Refused(String),
    /// Another process draws into the directory.
    #[error(transparent)]
    Locked(#[from] crate::base::lock::LockError),
    /// A file read there is no regular file (the message names it).
    #[error(transparent)]
    Input(#[from] crate::base::input::InputError),
}

/// `error` with `path` in front, unless its message names the path already.
fn named(path: &Path, error: &std::io::Error) -> String {
    let said = error.to_string();
    let shown = path.display().to_string();
    match said.starts_with(&shown) {
        true => said,
        false => format!("{shown}: {said}"),
    }
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

/// A figure: the name of its file and how to draw it, on any backend.
trait Figure {
    /// The file name, without extension.
    const NAME: &'static str;
    /// Draws the whole figure on `root`.
    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// Where figures go: their directory and format, the files drawn aside, and
/// the directory's record of sources.
struct Canvas {
    dir: PathBuf,
    format: Format,
    set: FileSet,
    record: Record,
    /// Held until the figures are in place.
    _lock: crate::base::lock::Held,
}

impl Canvas {
    /// Opens `dir` for `figures` (name and source of each) after checking
    /// against its record that each may be written there (`replace`: any).
    fn open(
        dir: &Path,
        format: Format,
        replace: bool,
        figures: &[(&str, Made)],
    ) -> Result<Canvas, PlotError> {
        register_fonts();
        // The lock makes the directory if missing (and removes it if no
        // figure was drawn there). One drawer per directory: its record says what every figure there
        // was drawn from, and two drawers would each write their own.
        let lock = crate::base::lock::lock(&dir.join(record::RECORD))?;
        let record = Record::open(dir, replace)?;
        for (name, made) in figures {
            record.check(&format!("{name}.{}", format.extension()), made)?;
        }
        Ok(Canvas {
            dir: dir.to_path_buf(),
            format,
            set: FileSet::new(),
            record,
            _lock: lock,
        })
    }

    /// Draws `figure` in memory and writes it aside (renamed into place at
    /// [`Canvas::commit`]), and notes its source; returns the path it will
    /// have. The image is encoded here, not by the drawing library, so that
    /// a write that fails (a full disk, a file size limit) is an error of
    /// the file, and the file is written aside and synced as every result.
    fn render<F: Figure>(&mut self, figure: &F, made: &Made) -> Result<PathBuf, PlotError> {
        let file = format!("{}.{}", F::NAME, self.format.extension());
        let path = self.dir.join(&file);
        match self.format {
            Format::Png => {
                let (w, h) = SIZE;
                let mut rgb = vec![0u8; 3 * w as usize * h as usize];
                {
                    let area = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
                    figure.draw(area.clone())?;
                    area.present()?;
                }
                self.set
                    .write(&path, |out| {
                        let mut png = png::Encoder::new(out, w, h);
                        png.set_color(png::ColorType::Rgb);
                        png.set_depth(png::BitDepth::Eight);
                        let mut png = png.write_header().map_err(std::io::Error::other)?;
                        png.write_image_data(&rgb).map_err(std::io::Error::other)?;
                        png.finish().map_err(std::io::Error::other)
                    })
                    .map_err(PlotError::io(&path))?;
            }
            Format::Svg => {
                let mut svg = String::new();
                {
                    let area = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
                    figure.draw(area.clone())?;
                    area.present()?;
                }
                self.set
                    .write(&path, |out| std::io::Write::write_all(out, svg.as_bytes()))
                    .map_err(PlotError::io(&path))?;
            }
        }
        self.record.note(&file, made);
        Ok(path)
    }

    /// Writes the record and renames every figure and it into place: all of
    /// them, or (a failure) none.
    fn commit(mut self) -> Result<(), PlotError> {
        self.record.write(&mut self.set)?;
        // The record is what the next drawing here checks first.
        self.set.rename_first(&self.dir.join(record::RECORD));
        self.set.commit().map_err(PlotError::io(&self.dir))
    }
}

/// A linear axis's range, as plotters can mark it: one that is empty (a
/// census of a row or two, a figure of one point) is widened to a unit
/// around its value, and one that is not finite becomes `0..1` (plotters
/// looks for tick marks without end in either).
fn axis(r: std::ops::Range<f64>) -> std::ops::Range<f64> {
    if !(r.start.is_finite() && r.end.is_finite()) {
        0.0..1.0
    } else if r.end - r.start < 1e-9 {
        r.start - 0.5..r.start + 0.5
    } else {
        r
    }
}

/// The legend box every figure uses, at `at`, in labels of `size` points.
fn legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    at: SeriesLabelPosition,
    size: u32,
) -> DrawResult
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(at)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, size))
        .draw()?;
    Ok(())
}

/// The figures [`plot_all`] draws, with the source of each: the image of
/// the table and the row close-up only with a table.
fn figures(with_table: bool, made: &Made, row: Option<(u64, bool)>) -> Vec<(&'static str, Made)> {
    let mut figures = Vec::new();
    if with_table {
        figures.push((<table::TableFigure as Figure>::NAME, made.clone()));
    }
    figures.push((<growth::GrowthFigure as Figure>::NAME, made.clone()));
    figures.push((<census::CensusFigure as Figure>::NAME, made.clone()));
    figures.push((
        <periodicity::PeriodicityFigure as Figure>::NAME,
        made.clone(),
    ));
    if let Some(row) = row {
        let (row, from_census) = row;
        figures.push((<row::RowFigure as Figure>::NAME, made.row(row, from_census)));
    }
    figures.push((<growth::DifferencesFigure as Figure>::NAME, made.clone()));
    figures
}

/// Checks, before any work, that [`plot_all`] may draw into `dir`: that no
/// figure there was drawn from a larger or another source (or, given the
/// analysis, from one holding more), unless `replace`;
/// `row`: the row up close, and whether it comes from the census.
pub fn may_plot_all(
    dir: &Path,
    with_table: bool,
    format: Format,
    row: Option<(u64, bool)>,
    made: &Made,
    analysis: Option<&Analysis>,
    replace: bool,
) -> Result<(), PlotError> {
    let made = match analysis {
        Some(a) => measured(made, a),
        None => made.clone(),
    };
    Canvas::open(dir, format, replace, &figures(with_table, &made, row)).map(|_| ())
}

/// `made` with how much the analysis `a` holds: the same table without the
/// census that settled its rows holds less, and does not replace its
/// figures.
fn measured(made: &Made, a: &Analysis) -> Made {
    made.clone().with("rows settled", a.settled_rows())
}

/// Draws every figure into `dir`; returns the files written. `row` is the row
/// shown up close (none: no close-up). Without a table (an analysis of a
/// census alone), the image of the table is left out. `made` says what the figures
/// are drawn from; no figure drawn from a larger or another source is
/// replaced unless `replace`.
pub fn plot_all(
    t: Option<&Table>,
    a: &Analysis,
    dir: &Path,
    format: Format,
    row: Option<&row::RowData>,
    made: &Made,
    replace: bool,
) -> Result<Vec<PathBuf>, PlotError> {
    let made = &measured(made, a);
    // Every figure is drawn aside, then all are renamed: a failure keeps the
    // old set whole.
    let mut c = Canvas::open(
        dir,
        format,
        replace,
        &figures(t.is_some(), made, row.map(|r| (r.r, r.from_census))),
    )?;
    let mut written = Vec::new();
    if let Some(t) = t {
        written.push(c.render(&table::TableFigure::new(t, a.facts.n)?, made)?);
    }
    written.push(c.render(&growth::GrowthFigure(&a.growth), made)?);
    written.push(c.render(&census::CensusFigure(a), made)?);
    written.push(c.render(&periodicity::PeriodicityFigure(a), made)?);
    if let Some(row) = row {
        written.push(c.render(&row::RowFigure(row), &made.row(row.r, row.from_census))?);
    }
    written.push(c.render(&growth::DifferencesFigure(&a.growth), made)?);
    c.commit()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::f::compute::{DEFAULT_COMMIT_EVERY, Request, compute};

    fn made() -> Made {
        Made::new("table", 400, "a test".into())
    }

    /// The share of pixels that are not white.
    fn inked(path: &Path) -> f64 {
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        assert_eq!(
            (reader.info().width, reader.info().height),
            SIZE,
            "{path:?}"
        );
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let px = info.color_type.samples();
        let pixels = buf[..info.buffer_size()].chunks(px);
        let inked = pixels.clone().filter(|p| p[..3] != [255, 255, 255]).count();
        inked as f64 / pixels.count() as f64
    }

    #[test]
    fn every_figure_renders_from_a_small_table_in_png_and_svg() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let req = Request {
            path: path.clone(),
            n: 400,
            capacity: None,
            threads: 2,
            commit_every: DEFAULT_COMMIT_EVERY,
            stop: crate::base::stop::Stop::new(),
        };
        compute(&req, &mut |_, _| {}).unwrap();
        let t = Table::open(&path).unwrap();
        let a = crate::f::analysis::analyze(&t, None, &mut |_, _, _| {}).unwrap();
        let out = dir.path().join("png");
        let named = |path: PathBuf, named| crate::f::lookup::Named { path, named };
        let sources = crate::f::lookup::Sources::open(
            &named(path.clone(), true),
            &named(dir.path().join("none.c3d"), false),
        )
        .unwrap();
        let row = row::RowData::read(&sources, 120, a.rows[120].clone()).unwrap();
        assert!(!row.from_census && row.values[0].0 == 120 && row.values.len() > 40);
        for &(q, f) in &row.values {
            assert_eq!(f, u128::from(t.get(q, 120).unwrap()), "f({q},120)");
        }
        let row = Some(&row);
        let written = plot_all(Some(&t), &a, &out, Format::Png, row, &made(), false).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "table",
                "growth",
                "census",
                "periodicity",
                "row",
                "differences"
            ]
        );
        for p in &written {
            let share = inked(p);
            assert!(share > 0.02, "{p:?} is nearly blank ({share})");
        }
        let svg = plot_all(
            Some(&t),
            &a,
            &dir.path().join("svg"),
            Format::Svg,
            row,
            &made(),
            false,
        )
        .unwrap();
        for p in &svg {
            let text = std::fs::read_to_string(p).unwrap();
            assert!(
                text.starts_with("<svg") && text.contains("width=\"1200\""),
                "{p:?}"
            );
            assert!(text.matches('<').count() > 50, "{p:?}: almost no drawing");
        }
        // Without a table: the four figures a census alone gives.
        let alone = plot_all(
            None,
            &a,
            &dir.path().join("alone"),
            Format::Png,
            None,
            &made(),
            false,
        )
        .unwrap();
        assert_eq!(alone.len(), 4);
    }
}
