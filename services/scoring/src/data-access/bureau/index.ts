export type {
  BureauEnquiries,
  BureauFileSummary,
  BureauName,
  BureauOutcome,
  BureauScore,
  BureauStatus,
  CreditBureau,
  FacilityClassification,
  NormalisedFacility,
  NormalisedReport,
} from '../../domain/bureauReport';
export {
  CRC_SCORE_BANDS,
  CRC_SCORE_MAX,
  CRC_SCORE_MIN,
  classifyFacility,
  crcBandOf,
  normaliseCrcResponse,
  parseCrcAmount,
  parseCrcDate,
} from './normalise';
export type { CrcNormalisation, NormaliseOptions } from './normalise';
