// Shared parts of the ndnSIM side of the ndnlab-vs-ndnSIM scenarios
// (scripts/sim-vs-ndnsim.sh): link defaults, consumer accounting, the
// forwarder counters read at the end and the one-line JSON report.
//
// Every scenario runs its consumers from 0 to `duration` seconds of virtual
// time and stops the simulator at duration + Interest lifetime + 1 s, the
// end the ndnlab `sim` runner gives the same experiment (warmup_s = 0), so
// both sides simulate the same span.
#ifndef SBS_COMMON_H
#define SBS_COMMON_H

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ndnSIM-module.h"
#include "ns3/ndnSIM/apps/ndn-app.hpp"
#include "ns3/ndnSIM/model/ndn-net-device-transport.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

namespace ns3 {
namespace sbs {

// What the consumers saw: Interests sent (first transmissions), Data
// received for them and the sum of their delivery times.
struct Tally
{
  uint64_t interests = 0;
  uint64_t data = 0;
  double delaySumUs = 0;
};

inline Tally&
tally()
{
  static Tally t;
  return t;
}

inline void
countSent(std::shared_ptr<const ndn::Interest>, Ptr<ndn::App>, std::shared_ptr<ndn::Face>)
{
  tally().interests++;
}

inline void
countDelivered(Ptr<ndn::App>, uint32_t, Time delay, uint32_t, int32_t)
{
  tally().data++;
  tally().delaySumUs += delay.GetSeconds() * 1e6;
}

// Hooks the accounting onto every ndnSIM Consumer in `apps`.
inline void
watchConsumers(const ApplicationContainer& apps)
{
  for (uint32_t i = 0; i < apps.GetN(); ++i) {
    Ptr<Application> a = apps.Get(i);
    a->TraceConnectWithoutContext("TransmittedInterests", MakeCallback(&countSent));
    a->TraceConnectWithoutContext("FirstInterestDataDelay", MakeCallback(&countDelivered));
  }
}

// Links as ndnlab's emulated links are in these scenarios: a frame of any NDN
// packet size passes whole (no NDNLPv2 fragmentation on either side).
inline void
linkDefaults()
{
  Config::SetDefault("ns3::PointToPointNetDevice::Mtu", UintegerValue(9000));
}

// A transmit queue that does not overflow, as ndnlab's `queue = 0`.
inline void
unboundedQueue(PointToPointHelper& p2p)
{
  p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1000000p"));
}

// The NDN stack on every node: an LRU Content Store of `cs` packets, best-route
// everywhere (ndnlab's default strategy), no default routes.
inline void
installStack(uint32_t cs)
{
  ndn::StackHelper stack;
  stack.setPolicy("nfd::cs::lru");
  stack.setCsSize(cs);
  stack.InstallAll();
  ndn::StrategyChoiceHelper::InstallAll("/", "/localhost/nfd/strategy/best-route");
}

// Runs to `end` seconds and prints one JSON line: the consumers' tally, the
// forwarders' counters summed over all nodes and the ns-3 event count.
inline void
runAndReport(const std::string& scenario, double end)
{
  Simulator::Stop(Seconds(end));
  Simulator::Run();

  uint64_t inI = 0, inD = 0, inN = 0, outI = 0, outD = 0, hits = 0, misses = 0;
  uint32_t nodes = 0;
  for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i) {
    Ptr<ndn::L3Protocol> l3 = NodeList::GetNode(i)->GetObject<ndn::L3Protocol>();
    if (l3 == nullptr)
      continue;
    ++nodes;
    const nfd::ForwarderCounters& c = l3->getForwarder()->getCounters();
    inI += c.nInInterests;
    inD += c.nInData;
    inN += c.nInNacks;
    outI += c.nOutInterests;
    outD += c.nOutData;
    hits += c.nCsHits;
    misses += c.nCsMisses;
  }
  const Tally& t = tally();
  std::printf("{\"scenario\":\"%s\",\"nodes\":%u,\"virtual_s\":%.6f,\"events\":%llu,"
              "\"interests\":%llu,\"data\":%llu,\"satisfaction\":%.6f,\"delay_mean_us\":%.3f,"
              "\"handlings\":%llu,\"fwd_in_interests\":%llu,\"fwd_in_data\":%llu,"
              "\"fwd_in_nacks\":%llu,\"fwd_out_interests\":%llu,\"fwd_out_data\":%llu,"
              "\"cs_hits\":%llu,\"cs_misses\":%llu,\"cs_hit_ratio\":%.6f}\n",
              scenario.c_str(), nodes, Simulator::Now().GetSeconds(),
              (unsigned long long)Simulator::GetEventCount(), (unsigned long long)t.interests,
              (unsigned long long)t.data, t.interests ? double(t.data) / t.interests : 0.0,
              t.data ? t.delaySumUs / t.data : 0.0, (unsigned long long)(inI + inD + inN),
              (unsigned long long)inI, (unsigned long long)inD, (unsigned long long)inN,
              (unsigned long long)outI, (unsigned long long)outD, (unsigned long long)hits,
              (unsigned long long)misses,
              hits + misses ? double(hits) / double(hits + misses) : 0.0);
  std::fflush(stdout);
  Simulator::Destroy();
}

} // namespace sbs
} // namespace ns3

#endif // SBS_COMMON_H
