import type { HistogramBin } from '@libs/review-models';

const width = 480;
const height = 200;
const margin = { top: 12, right: 12, bottom: 36, left: 40 };

/** The rewards' distribution as an SVG histogram: drawn the same in the console, the HTML report and the PDF. */
export const RewardChart = ({ bins, mean }: { bins: readonly HistogramBin[]; mean: number | null }) => {
  const max = Math.max(1, ...bins.map((b) => b.count));
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const barWidth = plotWidth / Math.max(1, bins.length);
  const y = (count: number) => margin.top + plotHeight - (count / max) * plotHeight;
  return (
    <svg
      className="reward-chart"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role="img"
      aria-label="Reward distribution"
    >
      <line
        x1={margin.left}
        y1={margin.top + plotHeight}
        x2={width - margin.right}
        y2={margin.top + plotHeight}
        stroke="#555"
      />
      <line x1={margin.left} y1={margin.top} x2={margin.left} y2={margin.top + plotHeight} stroke="#555" />
      {[0, max].map((tick) => (
        <text key={tick} x={margin.left - 6} y={y(tick) + 4} textAnchor="end" fontSize="11" fill="#333">
          {tick}
        </text>
      ))}
      {bins.map((bin, i) => (
        <g key={bin.from}>
          {bin.count > 0 && (
            <rect
              className="reward-bar"
              x={margin.left + i * barWidth + 2}
              y={y(bin.count)}
              width={barWidth - 4}
              height={margin.top + plotHeight - y(bin.count)}
              fill="#2f6fb3"
            >
              <title>{`${bin.from.toFixed(1)}–${bin.to.toFixed(1)}: ${bin.count}`}</title>
            </rect>
          )}
          {i % 2 === 0 && (
            <text x={margin.left + i * barWidth} y={height - 20} fontSize="11" fill="#333" textAnchor="middle">
              {bin.from.toFixed(1)}
            </text>
          )}
        </g>
      ))}
      <text x={width - margin.right} y={height - 20} fontSize="11" fill="#333" textAnchor="end">
        1.0
      </text>
      {mean !== null && (
        <line
          className="reward-mean"
          x1={margin.left + mean * plotWidth}
          x2={margin.left + mean * plotWidth}
          y1={margin.top}
          y2={margin.top + plotHeight}
          stroke="#c0392b"
          strokeDasharray="4 3"
        />
      )}
      <text x={margin.left + plotWidth / 2} y={height - 4} fontSize="11" fill="#333" textAnchor="middle">
        reward (dashed: mean)
      </text>
    </svg>
  );
};
