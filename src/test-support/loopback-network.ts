import { NetworkPolicy, parseCidrList } from "../core/network-policy.js";
import { ForgeNetwork } from "../forges/shared/forge-network.js";

/** The fake forges listen on 127.0.0.1: tests allow loopback explicitly, as an operator would a private forge. */
export const loopbackNetwork = () => new ForgeNetwork(new NetworkPolicy(parseCidrList("127.0.0.0/8").cidrs));
