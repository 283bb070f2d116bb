package dev.warden.bench;

/**
 * What Redis has done, read from its INFO sections: of one server ({@link RedisStats}) or of a
 * cluster's nodes ({@link ClusterStats}). Used by the runner's thread only.
 */
interface Stats extends AutoCloseable {

  /**
   * Reads the counters now. A window's opening snapshot reads the command calls last and its
   * closing one reads them first, so that only one INFO call's time on either edge is counted by
   * Redis but not by the workers.
   */
  RedisStats.Snapshot snapshot(boolean opening);

  @Override
  void close();
}
